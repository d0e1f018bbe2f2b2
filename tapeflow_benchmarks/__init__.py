"""
The paper's benchmark suite: the nine kernels of TapeFlow's evaluation (Table II),
written as MLIR primal functions with an `enzyme.autodiff` caller each, plus the
independent numpy/autograd references their gradients are checked against.
"""
