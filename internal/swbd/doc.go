// Package swbd holds real conversational timing from Switchboard, the
// reference the generator's timing is drawn from and checked against.
//
// # The data
//
// fto.txt (14,436 values) and pause.txt (14,996 values), one value in
// seconds a line, are samples of the two timing distributions of 2,438
// Switchboard conversations as TurnBench's public timing analysis computes
// them (file turnbench/analysis/swbd/results/swbd_timing_distributions.json
// of its repository at commit a87ffac20d6303a05db3509d6d48dfec91b8d858;
// events from the word alignments, a speaker's words merged into one
// stretch across gaps of 0.2 s or less). Each file is a set of contiguous
// windows spread evenly over the full list (about 12% of the offsets and 6%
// of the pauses); medians are good to about ±0.03 s (offsets) and ±0.01 s
// (pauses), tails less so.
//
//   - Offsets (fto): at a speaker change between floor-claiming stretches,
//     the next start minus the previous end; negative is an overlap. Median
//     0.108 s, 41.7% overlaps, 5% below −1.95 s and 5% above 1.75 s.
//   - Pauses: the same speaker resumes after silence and nobody claimed the
//     floor in between; at least 0.2 s by construction. Median 0.512 s,
//     P(> 1 s) 14.0%, P(> 2 s) 1.8%.
//   - Overlaps: the magnitudes of the negative offsets (6,013 values): at a
//     floor transfer in overlap, how long the previous speaker talked on
//     after the next one started. Median 0.449 s; 10/25/75/90th percentiles
//     0.073/0.192/1.035/2.228 s; 25.9% over 1 s.
//
// Gaps and pauses overlap heavily: silence length alone is weak evidence of
// a turn end, which is what a benchmark of end-of-turn detection needs.
//
// # Use
//
// Offsets, Pauses and Overlaps are the samples as sorted distributions;
// Distribution.At is their quantile function (linear between order
// statistics), which the generator draws through, Distribution.Share their
// distribution function, and KS is the two-sample Kolmogorov–Smirnov
// distance a corpus's timing is checked with (`floorbench corpus timing`).
package swbd
