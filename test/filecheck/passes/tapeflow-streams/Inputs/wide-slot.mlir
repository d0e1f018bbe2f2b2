// A region slot wider than one tape word.
"test.op"() : () -> !region.region<4, [i128]>
