"""
Mass Spring: one step of DiffTaichi's mass-spring controller (nn1, nn2 and the
spring forces), with O = 2*S objects, S springs, H hidden units and 16 sine waves.

- nn1, per hidden unit i: `tanh` of the weighted sum of 16 sine features
  `sin(phase0 + 2*pi*j/16)`, of 4 state features per object (`0.05 * x[o][0]`,
  `0.05 * x[o][1]`, `0.05 * v[o][0]`, `0.05 * v[o][1]`), of two constant features
  (the goal direction, fixed here) and of a bias; W1 is `[H][16 + 4*O + 2]`.
- nn2, per spring s: `act[s] = tanh(sum_j W2[s][j] * hidden[j] + b2[s])`.
- apply-force, per spring s between objects a = 2s and b = 2s+1: `dist = x[b] -
  x[a]`, `len = |dist| + 1e-4` (Euclidean), `target = L[s] * (1 + act[s] * A[s])`,
  `imp = (len - target) / len * dist`, `vinc[a] -= imp`, `vinc[b] += imp`.

The state `x`, `v`, `vinc` is `[O][2]`, as in DiffTaichi. Only W1, b1, W2 and b2
are differentiated; x, v, the rest lengths L and the actuation amplitudes A are
constants; vinc is an output accumulated in place, so after the gradient its
shadow still holds its seed. hidden and act are `memref.alloca` temporaries, and
the sine phase is carried through the loop as an inactive f64.

Sizes: `small` O = 4 objects (2 springs), H = 3 hidden; `paper` O = 128 (64
springs), H = 32 (Table II); `artifact` O = 32 (16 springs), H = 16, the sizes of the
authors' C version, not unrolled.

Why each choice, and where it departs from the authors' C version:
docs/research/kernels.md, "Mass Spring".
"""

from __future__ import annotations

import math

import autograd.numpy as anp
import numpy as np

from tapeflow_benchmarks.kernels.kernel import (
    Array,
    Kernel,
    Param,
    Sizes,
    f64,
    index_constants,
    memref,
    render,
)

SINES = 16
PHASE0 = 0.2
"""`spring_omega * t * dt` of DiffTaichi (omega 10, dt 0.004) at step t = 5."""
STATE_SCALE = 0.05
GOAL = (0.3, -0.1)
"""The two constant features: the goal's offset from the centre, fixed here."""
LENGTH_EPS = 1e-4


def params(s: Sizes) -> tuple[Param, ...]:
    o, h = s["O"], s["H"]
    springs = o // 2
    return (
        Param("x", (o, 2)),
        Param("v", (o, 2)),
        Param("W1", (h, SINES + 4 * o + 2), active=True),
        Param("b1", (h,), active=True),
        Param("W2", (springs, h), active=True),
        Param("b2", (springs,), active=True),
        Param("L", (springs,)),
        Param("A", (springs,)),
        Param("vinc", (o, 2), active=True, written=True),
    )


def body(s: Sizes) -> str:
    o, h = s["O"], s["H"]
    springs = o // 2
    goal_col = SINES + 4 * o
    return render(
        """
        $consts
        %zero = arith.constant 0.0 : f64
        %one = arith.constant 1.0 : f64
        %phase0 = arith.constant $phase0 : f64
        %dphase = arith.constant $dphase : f64
        %state_scale = arith.constant $state_scale : f64
        %goal0 = arith.constant $goal0 : f64
        %goal1 = arith.constant $goal1 : f64
        %length_eps = arith.constant $length_eps : f64
        // nn1
        %hidden = memref.alloca() : $ht
        scf.for %i = %c0 to %c$H step %c1 {
          %sines:2 = scf.for %j = %c0 to %c$SINES step %c1
              iter_args(%acc = %zero, %phase = %phase0) -> (f64, f64) {
            %w = memref.load %W1[%i, %j] : $w1t
            %sin = math.sin %phase : f64
            %term = arith.mulf %w, %sin : f64
            %next = arith.addf %acc, %term : f64
            %next_phase = arith.addf %phase, %dphase : f64
            scf.yield %next, %next_phase : f64, f64
          }
          %state = scf.for %o = %c0 to %c$O step %c1
              iter_args(%acc = %sines#0) -> (f64) {
            %o4 = arith.muli %o, %c4 : index
            %col0 = arith.addi %o4, %c$SINES : index
            %col1 = arith.addi %col0, %c1 : index
            %col2 = arith.addi %col0, %c2 : index
            %col3 = arith.addi %col0, %c3 : index
            %x0 = memref.load %x[%o, %c0] : $st
            %x1 = memref.load %x[%o, %c1] : $st
            %v0 = memref.load %v[%o, %c0] : $st
            %v1 = memref.load %v[%o, %c1] : $st
            %w0 = memref.load %W1[%i, %col0] : $w1t
            %w1 = memref.load %W1[%i, %col1] : $w1t
            %w2 = memref.load %W1[%i, %col2] : $w1t
            %w3 = memref.load %W1[%i, %col3] : $w1t
            %wx0 = arith.mulf %w0, %x0 : f64
            %t0 = arith.mulf %wx0, %state_scale : f64
            %acc0 = arith.addf %acc, %t0 : f64
            %wx1 = arith.mulf %w1, %x1 : f64
            %t1 = arith.mulf %wx1, %state_scale : f64
            %acc1 = arith.addf %acc0, %t1 : f64
            %wv0 = arith.mulf %w2, %v0 : f64
            %t2 = arith.mulf %wv0, %state_scale : f64
            %acc2 = arith.addf %acc1, %t2 : f64
            %wv1 = arith.mulf %w3, %v1 : f64
            %t3 = arith.mulf %wv1, %state_scale : f64
            %acc3 = arith.addf %acc2, %t3 : f64
            scf.yield %acc3 : f64
          }
          %wg0 = memref.load %W1[%i, %c$goal_col] : $w1t
          %wg1 = memref.load %W1[%i, %c$goal_col1] : $w1t
          %g0 = arith.mulf %wg0, %goal0 : f64
          %with_g0 = arith.addf %state, %g0 : f64
          %g1 = arith.mulf %wg1, %goal1 : f64
          %with_g1 = arith.addf %with_g0, %g1 : f64
          %b = memref.load %b1[%i] : $ht
          %pre = arith.addf %with_g1, %b : f64
          %hid = math.tanh %pre : f64
          memref.store %hid, %hidden[%i] : $ht
        }
        // nn2
        %act = memref.alloca() : $spt
        scf.for %s = %c0 to %c$S step %c1 {
          %sum = scf.for %j = %c0 to %c$H step %c1 iter_args(%acc = %zero) -> (f64) {
            %w = memref.load %W2[%s, %j] : $w2t
            %hj = memref.load %hidden[%j] : $ht
            %term = arith.mulf %w, %hj : f64
            %next = arith.addf %acc, %term : f64
            scf.yield %next : f64
          }
          %b = memref.load %b2[%s] : $spt
          %pre = arith.addf %sum, %b : f64
          %a = math.tanh %pre : f64
          memref.store %a, %act[%s] : $spt
        }
        // apply spring force
        scf.for %s = %c0 to %c$S step %c1 {
          %a = arith.muli %s, %c2 : index
          %b = arith.addi %a, %c1 : index
          %xa0 = memref.load %x[%a, %c0] : $st
          %xa1 = memref.load %x[%a, %c1] : $st
          %xb0 = memref.load %x[%b, %c0] : $st
          %xb1 = memref.load %x[%b, %c1] : $st
          %d0 = arith.subf %xb0, %xa0 : f64
          %d1 = arith.subf %xb1, %xa1 : f64
          %dd0 = arith.mulf %d0, %d0 : f64
          %dd1 = arith.mulf %d1, %d1 : f64
          %dd = arith.addf %dd0, %dd1 : f64
          %norm = math.sqrt %dd : f64
          %len = arith.addf %norm, %length_eps : f64
          %act_s = memref.load %act[%s] : $spt
          %amp = memref.load %A[%s] : $spt
          %rest = memref.load %L[%s] : $spt
          %scaled_act = arith.mulf %act_s, %amp : f64
          %stretch = arith.addf %one, %scaled_act : f64
          %target = arith.mulf %rest, %stretch : f64
          %excess = arith.subf %len, %target : f64
          %ratio = arith.divf %excess, %len : f64
          %imp0 = arith.mulf %ratio, %d0 : f64
          %imp1 = arith.mulf %ratio, %d1 : f64
          %va0 = memref.load %vinc[%a, %c0] : $st
          %va0_new = arith.subf %va0, %imp0 : f64
          memref.store %va0_new, %vinc[%a, %c0] : $st
          %va1 = memref.load %vinc[%a, %c1] : $st
          %va1_new = arith.subf %va1, %imp1 : f64
          memref.store %va1_new, %vinc[%a, %c1] : $st
          %vb0 = memref.load %vinc[%b, %c0] : $st
          %vb0_new = arith.addf %vb0, %imp0 : f64
          memref.store %vb0_new, %vinc[%b, %c0] : $st
          %vb1 = memref.load %vinc[%b, %c1] : $st
          %vb1_new = arith.addf %vb1, %imp1 : f64
          memref.store %vb1_new, %vinc[%b, %c1] : $st
        }
        return
        """,
        consts=index_constants(0, 1, 2, 3, 4, h, SINES, o, springs, goal_col, goal_col + 1),
        H=h,
        O=o,
        S=springs,
        SINES=SINES,
        goal_col=goal_col,
        goal_col1=goal_col + 1,
        phase0=f64(PHASE0),
        dphase=f64(2 * math.pi / SINES),
        state_scale=f64(STATE_SCALE),
        goal0=f64(GOAL[0]),
        goal1=f64(GOAL[1]),
        length_eps=f64(LENGTH_EPS),
        st=memref((o, 2)),
        w1t=memref((h, SINES + 4 * o + 2)),
        ht=memref((h,)),
        w2t=memref((springs, h)),
        spt=memref((springs,)),
    )


def primal(s: Sizes, a: dict[str, Array]) -> tuple[None, dict[str, Array]]:
    o = s["O"]
    x, w1 = a["x"], a["W1"]
    phases = PHASE0 + (2 * math.pi / SINES) * np.arange(SINES)
    state = STATE_SCALE * anp.reshape(anp.concatenate([x, a["v"]], axis=1), (4 * o,))
    hidden = anp.tanh(
        anp.dot(w1[:, :SINES], anp.sin(phases))
        + anp.dot(w1[:, SINES : SINES + 4 * o], state)
        + anp.dot(w1[:, SINES + 4 * o :], anp.array(GOAL))
        + a["b1"]
    )
    act = anp.tanh(anp.dot(a["W2"], hidden) + a["b2"])
    dist = x[1::2] - x[0::2]
    length = anp.sqrt(anp.sum(dist * dist, axis=1)) + LENGTH_EPS
    target = a["L"] * (1.0 + act * a["A"])
    impulse = ((length - target) / length)[:, None] * dist
    delta = anp.reshape(anp.stack([-impulse, impulse], axis=1), (o, 2))
    return None, {"vinc": a["vinc"] + delta}


def generate(s: Sizes, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Springs 0.1 to 0.3 long in random directions (never near the zero length the
    impulse divides by), rest lengths alike, weights scaled so tanh stays out of
    saturation."""
    o, h = s["O"], s["H"]
    springs = o // 2
    anchors = rng.uniform(0.0, 1.0, (springs, 2))
    angle = rng.uniform(0.0, 2 * math.pi, springs)
    length = rng.uniform(0.1, 0.3, springs)
    ends = anchors + length[:, None] * np.stack([np.cos(angle), np.sin(angle)], axis=1)
    columns = SINES + 4 * o + 2
    return {
        "x": np.stack([anchors, ends], axis=1).reshape(o, 2),
        "v": rng.normal(0.0, 1.0, (o, 2)),
        "W1": rng.normal(0.0, 1.0 / np.sqrt(SINES), (h, columns)),
        "b1": rng.normal(0.0, 0.1, h),
        "W2": rng.normal(0.0, 1.0 / np.sqrt(h), (springs, h)),
        "b2": rng.normal(0.0, 0.1, springs),
        "L": rng.uniform(0.1, 0.3, springs),
        "A": rng.uniform(0.05, 0.2, springs),
        "vinc": rng.normal(0.0, 1.0, (o, 2)),
    }


KERNEL = Kernel(
    key="massspring",
    sizes={"small": {"O": 4, "H": 3}, "paper": {"O": 128, "H": 32}, "artifact": {"O": 32, "H": 16}},
    params=params,
    returns_scalar=False,
    body=body,
    primal=primal,
    generate=generate,
)
