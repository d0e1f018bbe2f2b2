// RUN: tapeflow-opt -p tapeflow-to-cgra %s | filecheck %s --check-prefix=DEFAULT
// RUN: tapeflow-opt -p 'tapeflow-to-cgra{preset=Tflow1k}' %s | filecheck %s --check-prefix=DEFAULT
// RUN: tapeflow-opt -p 'tapeflow-to-cgra{fadd=9 cache-ports=1 rows=2 cols=3}' %s | filecheck %s --check-prefix=CUSTOM
// RUN: tapeflow-opt -p 'tapeflow-to-cgra{rows=1 cols=1}' %s | filecheck %s --check-prefix=ONE
// RUN: not tapeflow-opt -p 'tapeflow-to-cgra{rows=100000 cols=100000}' %s 2>&1 | filecheck %s --check-prefix=HUGE
// RUN: not tapeflow-opt -p 'tapeflow-to-cgra{cols=65}' %s 2>&1 | filecheck %s --check-prefix=COLS
// RUN: not tapeflow-opt -p 'tapeflow-to-cgra{cols=0}' %s 2>&1 | filecheck %s --check-prefix=ZERO
// RUN: not tapeflow-opt -p 'tapeflow-to-cgra{fadd=-3}' %s 2>&1 | filecheck %s --check-prefix=NEGATIVE
// RUN: not tapeflow-opt -p 'tapeflow-to-cgra{spad-banks=0}' %s 2>&1 | filecheck %s --check-prefix=BANKS
// RUN: not tapeflow-opt -p 'tapeflow-to-cgra{preset=Tflow64k}' %s 2>&1 | filecheck %s --check-prefix=PRESET
// RUN: not tapeflow-opt -p 'tapeflow-to-cgra,tapeflow-to-cgra' %s 2>&1 | filecheck %s --check-prefix=TWICE
// A hardware file's fields reach the scheduler; options then change single values.
// RUN: printf 'rows: 2\ncols: 3\nlatencies: {fadd: 9}\ncache: {ports: 1}\n' > %t.yaml
// RUN: tapeflow-opt -p 'tapeflow-to-cgra{hardware-file="%t.yaml"}' %s | filecheck %s --check-prefix=CUSTOM
// RUN: tapeflow-opt -p 'tapeflow-to-cgra{hardware-file="%t.yaml" rows=4 cols=4 fadd=5 cache-ports=2}' %s | filecheck %s --check-prefix=DEFAULT
// RUN: printf 'rows: 65\n' > %t.big.yaml
// RUN: not tapeflow-opt -p 'tapeflow-to-cgra{hardware-file="%t.big.yaml"}' %s 2>&1 | filecheck %s --check-prefix=FILEBIG
// RUN: printf 'cache: {portz: 1}\n' > %t.typo.yaml
// RUN: not tapeflow-opt -p 'tapeflow-to-cgra{hardware-file="%t.typo.yaml"}' %s 2>&1 | filecheck %s --check-prefix=FILEKEY

// The schedule is for the hardware the options describe. @diffesum carries its sum
// from iteration to iteration through one fadd: ii is the fadd latency (5 by
// default, 9 with fadd=9). @diffecopy makes three independent cache accesses per
// iteration: ii is 3 accesses over the cache's ports (2 by default: ii 2; 1 port:
// ii 3). On a single PE, its four ops (3 accesses and an addf) need ii 4.

// DEFAULT-LABEL: func.func private @diffesum
// DEFAULT:         cgra.kernel 0 rows 4 cols 4 ii 5 -> f64 {
// DEFAULT-LABEL: func.func private @diffecopy
// DEFAULT:         cgra.kernel 0 rows 4 cols 4 ii 2 {

// CUSTOM-LABEL: func.func private @diffesum
// CUSTOM:         cgra.kernel 0 rows 2 cols 3 ii 9 -> f64 {
// CUSTOM:           cgra.op "arith.addf"(%{{.*}}, %{{.*}}) at {{[0-1]}}, {{[0-2]}} cycle
// CUSTOM-LABEL: func.func private @diffecopy
// CUSTOM:         cgra.kernel 0 rows 2 cols 3 ii 3 {

// ONE-LABEL: func.func private @diffecopy
// ONE:         cgra.kernel 0 rows 1 cols 1 ii 4 {
// ONE-NEXT:      cgra.load %x[%i] cache at 0, 0 cycle
// ONE-NEXT:      cgra.load %y[%i] cache at 0, 0 cycle
// ONE-NEXT:      cgra.op "arith.addf"(%v, %w) at 0, 0 cycle
// ONE-NEXT:      cgra.store %n, %z[%i] cache at 0, 0 cycle

// HUGE: tapeflow-opt: error: tapeflow-to-cgra: option rows=100000 is over the limit of 64 PEs a side (a 64x64 grid at most)
// HUGE-NOT: Traceback
// COLS: tapeflow-opt: error: tapeflow-to-cgra: option cols=65 is over the limit of 64 PEs a side (a 64x64 grid at most)
// ZERO: tapeflow-opt: error: tapeflow-to-cgra: option cols must be at least 1, got 0
// NEGATIVE: tapeflow-opt: error: tapeflow-to-cgra: option fadd must be at least 1, got -3
// BANKS: tapeflow-opt: error: tapeflow-to-cgra: option spad-banks must be at least 1, got 0
// PRESET: tapeflow-opt: error: tapeflow-to-cgra: unknown hardware preset 'Tflow64k' (option preset); choose from Enzyme32k, Enzyme1k, Tflow32k, Tflow2k, Tflow1k
// FILEBIG: tapeflow-opt: error: tapeflow-to-cgra: hardware file {{.*}}.big.yaml sets rows=65; the scheduler takes 1 to 64
// FILEBIG-NOT: Traceback
// FILEKEY: tapeflow-opt: error: tapeflow-to-cgra: option hardware-file: {{.*}}.typo.yaml: unknown hardware key 'cache.portz'
// TWICE: tapeflow-opt: error: tapeflow-to-cgra: @diffesum is already placed on the CGRA (it holds cgra.kernel ops); the pass runs once, after the lowering

func.func private @diffesum(%x: memref<8xf64>) -> f64 attributes {tapeflow.gradient_of = @sum} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f64
  %s = scf.for %i = %c0 to %c8 step %c1 iter_args(%acc = %zero) -> (f64) {
    %v = memref.load %x[%i] : memref<8xf64>
    %n = arith.addf %acc, %v : f64
    scf.yield %n : f64
  }
  func.return %s : f64
}

func.func private @diffecopy(%x: memref<8xf64>, %y: memref<8xf64>, %z: memref<8xf64>) attributes {tapeflow.gradient_of = @copy} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c0 to %c8 step %c1 {
    %v = memref.load %x[%i] : memref<8xf64>
    %w = memref.load %y[%i] : memref<8xf64>
    %n = arith.addf %v, %w : f64
    memref.store %n, %z[%i] : memref<8xf64>
  }
  func.return
}
