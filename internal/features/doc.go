// Package features computes the inputs published speech models expect
// from their waveform, on the host, exactly as the models' own
// preprocessing does (docs/architecture.md#detectors):
//
//   - WhisperLogMel: the log-mel spectrogram of Hugging Face's
//     WhisperFeatureExtractor (numpy path, _np_extract_fbank_features):
//     a centred STFT of 400 samples every 160 with a periodic Hann
//     window and reflect padding, the power spectrum through a Slaney mel
//     filter bank from 0 to 8 kHz, log10 of at least 1e-10, the last
//     frame dropped, every value clamped to the chunk's maximum minus 8,
//     then (x + 4) / 4. Smart Turn v3 reads 80 bins of an 8 s chunk.
//   - Normalize: zero mean and unit variance over a waveform's real
//     samples, (x − mean) / sqrt(var + 1e-7), padding set to zero, as
//     Wav2Vec2FeatureExtractor's zero_mean_unit_var_norm (and Whisper's
//     do_normalize) computes it.
//
// Tables (the window, the filter bank) are made once per model
// (NewWhisperLogMel); each goroutine computes with its own
// WhisperExtractor, which allocates nothing per chunk.
package features
