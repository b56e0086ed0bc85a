// Package capsbench measures the peak memory of the tool's bounded readers
// against their caps, on hostile inputs: large pretty-printed files, LLM
// answers at their cap, text-heavy web pages at theirs (BenchmarkPeak; see
// BENCHMARKS.md, "Caps on the stream").
package capsbench
