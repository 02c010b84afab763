#!/usr/bin/env python3
"""Writes the golden log-mel features that golden_test.go compares with.

The features are computed here with numpy alone, step by step as Hugging
Face's WhisperFeatureExtractor computes them on its numpy path
(feature_extraction_whisper.py: zero_mean_unit_var_norm when do_normalize,
then _np_extract_fbank_features over audio_utils.spectrogram with
window_function(400, "hann") and mel_filter_bank(..., norm="slaney",
mel_scale="slaney")), including its float32 and complex64 roundings.

The input is made of integers only, so golden_test.go builds the same
samples bit for bit without reading a file. Each case writes its
[bins, frames] features as little-endian float32, bin by bin.

Run once from this folder with numpy installed (python3 make_golden.py);
the tests never need Python.
"""

import numpy as np

RATE = 16000
N_FFT = 400
HOP = 160


def signal(n):
    """A buzz at 125 Hz under an envelope that rises from silence after
    0.25 s, falls silent again from 1.25 s to 1.5 s, with LCG noise of
    +-100 LSB throughout: integers divided by 32768."""
    state = 2026
    out = np.zeros(n, dtype=np.int64)
    for i in range(n):
        state = (1103515245 * state + 12345) % (1 << 31)
        noise = (state >> 16) % 201 - 100
        amp = 0 if i < 4000 else min(i - 4000, 4000)
        if 20000 <= i < 24000:
            amp = 0
        voiced = ((i % 128) * 256 * amp) // 8000 - (16384 * amp) // 8000
        out[i] = voiced + noise
    return (out / 32768.0).astype(np.float32)


def zero_mean_unit_var(x):
    """do_normalize over a chunk with no padding of the extractor's own."""
    return (x - x.mean()) / np.sqrt(x.var() + 1e-7)


def hz_to_mel(f):
    f = np.asarray(f, dtype=np.float64)
    mel = 3.0 * f / 200.0
    log = f >= 1000.0
    return np.where(log, 15.0 + np.log(np.maximum(f, 1e-12) / 1000.0) * (27.0 / np.log(6.4)), mel)


def mel_to_hz(m):
    m = np.asarray(m, dtype=np.float64)
    hz = 200.0 * m / 3.0
    log = m >= 15.0
    return np.where(log, 1000.0 * np.exp(np.log(6.4) / 27.0 * (m - 15.0)), hz)


def slaney_filters(bins):
    """[201, bins]: librosa's mel(sr=16000, n_fft=400, fmax=8000, norm="slaney")."""
    fft_freqs = np.linspace(0, RATE // 2, N_FFT // 2 + 1)
    edges = mel_to_hz(np.linspace(hz_to_mel(0.0), hz_to_mel(8000.0), bins + 2))
    diff = np.diff(edges)
    slopes = edges[None, :] - fft_freqs[:, None]
    down = -slopes[:, :-2] / diff[:-1]
    up = slopes[:, 2:] / diff[1:]
    filters = np.maximum(0.0, np.minimum(down, up))
    return filters * (2.0 / (edges[2:] - edges[:-2]))[None, :]


def log_mel(x, bins):
    padded = np.pad(x, (N_FFT // 2, N_FFT // 2), mode="reflect").astype(np.float64)
    window = np.hanning(N_FFT + 1)[:-1]
    frames = 1 + (len(padded) - N_FFT) // HOP
    spec = np.empty((frames, N_FFT // 2 + 1), dtype=np.complex64)
    for t in range(frames):
        spec[t] = np.fft.rfft(padded[t * HOP : t * HOP + N_FFT] * window)
    power = (np.abs(spec, dtype=np.float64) ** 2).T
    mel = np.maximum(1e-10, slaney_filters(bins).T @ power)
    out = np.log10(mel).astype(np.float32)[:, :-1]
    out = np.maximum(out, out.max() - 8.0)
    return ((out + 4.0) / 4.0).astype(np.float32)


def main():
    # Smart Turn v3's input: a chunk padded with zeros in front, then
    # normalised as a whole (its inference pads before the extractor).
    chunk = np.concatenate([np.zeros(8000, dtype=np.float32), signal(24000)])
    log_mel(zero_mean_unit_var(chunk), 80).astype("<f4").tofile("smart-turn-80.f32")
    # Whisper large-v3's 128 bins, not normalised.
    log_mel(signal(16000), 128).astype("<f4").tofile("whisper-128.f32")


if __name__ == "__main__":
    main()
