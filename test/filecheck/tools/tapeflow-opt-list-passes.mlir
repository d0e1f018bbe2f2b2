// `--list-passes`: one line per pass, sorted by name, each with the first sentence
// of its docstring; `--help` points there instead of listing every pass name.
// RUN: tapeflow-opt --list-passes | filecheck %s
// RUN: tapeflow-opt --help | filecheck %s --check-prefix=HELP

// CHECK:      {{^}}canonicalize {{ +}}Applies all canonicalization patterns.{{$}}
// CHECK:      {{^}}tapeflow-enzyme {{ +}}Replace each `enzyme.autodiff` by a call of Enzyme's gradient function.{{$}}
// CHECK-NEXT: {{^}}tapeflow-layers {{ +}}Cut FWD and REV into layers whose tape fits the scratchpad (Pass 2).{{$}}
// CHECK-NEXT: {{^}}tapeflow-mark-rev-start {{ +}}Mark the first top-level op
// CHECK:      {{^}}tapeflow-while-to-for {{ +}}Rewrite `scf.while` loops into `scf.for` loops
// CHECK-NEXT: {{^}}test-

// HELP:      -p PASSES, --passes PASSES
// HELP-NEXT: comma-separated pass pipeline
// HELP-NOT:  tapeflow-raise-
// HELP:      --list-passes names every pass
// HELP:      --list-passes
// HELP-SAME: list every pass
