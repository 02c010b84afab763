// Package audio reads and writes WAV files, resamples, mixes, and makes the
// noises the generator's acoustics stage adds (docs/architecture.md#generator, stage 4). Samples
// are float32 in [-1, 1], one channel per slice.
//
// Generated corpora are 16 kHz mono PCM16 (docs/formats.md#channels); other rates are
// accepted on read and resampled by ReadWAV16k, so detectors can take any
// WAV a user brings.
package audio
