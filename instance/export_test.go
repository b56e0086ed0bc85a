package instance

// Decode is decode, for the benchmarks of package instance_test (which
// can import internal/testgen/recgen; package instance cannot).
var Decode = decode
