package features

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/dsp/fourier"
)

// Whisper's STFT at 16 kHz: 400-sample frames every 160 samples, so 201
// frequency bins 40 Hz apart, and a mel scale from 0 Hz to the Nyquist
// frequency.
const (
	whisperFFT = 400
	// WhisperHop is the samples between two feature frames.
	WhisperHop     = 160
	whisperBins    = whisperFFT/2 + 1
	whisperRate    = 16000
	whisperMaxFreq = 8000.0
	// whisperFloor is the smallest mel power taken to the log (-100 dB),
	// whisperRange how far below the chunk's maximum a log value may lie
	// (80 dB).
	whisperFloor = 1e-10
	whisperRange = 8.0
)

// WhisperLogMel is Whisper's log-mel front end for chunks of a fixed
// number of samples: the Hann window and the mel filter bank, computed
// once and shared by every WhisperExtractor made from it.
type WhisperLogMel struct {
	bins, samples int
	window        [whisperFFT]float64
	filters       []melFilter
}

// melFilter is one triangular filter of the bank: its weights on the
// frequency bins from first on, the bins where it is not zero.
type melFilter struct {
	first   int
	weights []float64
}

// NewWhisperLogMel makes the front end of bins mel bins over chunks of
// samples samples (at least one STFT frame). A bank in which some filter
// covers no frequency bin is an error: that bin would be constant.
// Bins are at most the FFT's frequency bins, which bounds the tables a
// spec can ask for.
func NewWhisperLogMel(bins, samples int) (*WhisperLogMel, error) {
	if bins < 1 || bins > whisperBins {
		return nil, fmt.Errorf("mel bins %d: want 1 to %d, the FFT's frequency bins", bins, whisperBins)
	}
	if samples < whisperFFT {
		return nil, fmt.Errorf("chunk of %d samples: want at least %d, one STFT frame", samples, whisperFFT)
	}
	w := &WhisperLogMel{bins: bins, samples: samples}
	for n := range w.window {
		// Periodic Hann (torch.hann_window, numpy's hanning(401)[:-1]).
		w.window[n] = 0.5 - 0.5*math.Cos(2*math.Pi*float64(n)/whisperFFT)
	}
	for i, weights := range slaneyFilterBank(bins) {
		first, last := -1, -1
		for k, v := range weights {
			if v > 0 {
				if first < 0 {
					first = k
				}
				last = k
			}
		}
		if first < 0 {
			return nil, fmt.Errorf("mel bins %d: filter %d covers no frequency bin of a %d-point FFT", bins, i, whisperFFT)
		}
		w.filters = append(w.filters, melFilter{first: first, weights: weights[first : last+1]})
	}
	return w, nil
}

// slaneyFilterBank is librosa's mel(sr=16000, n_fft=400, n_mels=bins,
// fmin=0, fmax=8000, htk=False, norm="slaney"): triangles whose edges
// are bins+2 points evenly spaced on the Slaney mel scale, each scaled
// by 2 / its width in hertz. Row i holds filter i's weight on every
// frequency bin.
func slaneyFilterBank(bins int) [][]float64 {
	top := slaneyMel(whisperMaxFreq)
	edges := make([]float64, bins+2)
	for i := range edges {
		edges[i] = slaneyHz(top * float64(i) / float64(bins+1))
	}
	bank := make([][]float64, bins)
	for i := range bank {
		lo, mid, hi := edges[i], edges[i+1], edges[i+2]
		bank[i] = make([]float64, whisperBins)
		for k := range bank[i] {
			f := float64(k) * whisperRate / whisperFFT
			up, down := (f-lo)/(mid-lo), (hi-f)/(hi-mid)
			bank[i][k] = max(0, min(up, down)) * 2 / (hi - lo)
		}
	}
	return bank
}

// The Slaney mel scale (Auditory Toolbox): linear below 1 kHz, 3 mels
// per 200 Hz, logarithmic above, 27 mels per factor 6.4.
const (
	slaneyBreakHz  = 1000.0
	slaneyBreakMel = 15.0
)

// slaneyLogStep is mels per unit of ln(hz) above the break.
var slaneyLogStep = 27 / math.Log(6.4)

func slaneyMel(hz float64) float64 {
	if hz < slaneyBreakHz {
		return 3 * hz / 200
	}
	return slaneyBreakMel + math.Log(hz/slaneyBreakHz)*slaneyLogStep
}

func slaneyHz(mel float64) float64 {
	if mel < slaneyBreakMel {
		return 200 * mel / 3
	}
	return slaneyBreakHz * math.Exp((mel-slaneyBreakMel)/slaneyLogStep)
}

// Frames is the number of feature frames of a chunk: the centred STFT
// has samples/160 + 1, and the last is dropped.
func (w *WhisperLogMel) Frames() int { return w.samples / WhisperHop }

// WhisperExtractor computes log-mel features with a WhisperLogMel's
// tables and buffers of its own: one per goroutine.
type WhisperExtractor struct {
	mel    *WhisperLogMel
	fft    *fourier.FFT
	padded []float64
	frame  []float64
	coeffs []complex128
	power  []float64
}

// Extractor makes a WhisperExtractor of the front end.
func (w *WhisperLogMel) Extractor() *WhisperExtractor {
	return &WhisperExtractor{
		mel:    w,
		fft:    fourier.NewFFT(whisperFFT),
		padded: make([]float64, w.samples+whisperFFT),
		frame:  make([]float64, whisperFFT),
		coeffs: make([]complex128, whisperBins),
		power:  make([]float64, whisperBins),
	}
}

// Compute writes the log-mel features of chunk (Samples() samples) to
// dst (Bins()·Frames() values, bin by bin, frame by frame within a bin:
// the [bins, frames] layout of Whisper's input_features).
func (e *WhisperExtractor) Compute(dst, chunk []float32) error {
	w := e.mel
	frames := w.Frames()
	if len(chunk) != w.samples || len(dst) != w.bins*frames {
		return fmt.Errorf("whisper log-mel: %d samples into %d values, want %d into %d", len(chunk), len(dst), w.samples, w.bins*frames)
	}
	e.pad(chunk)
	top := float32(math.Inf(-1))
	for t := range frames {
		at := e.padded[t*WhisperHop:][:whisperFFT]
		for n, x := range at {
			e.frame[n] = x * w.window[n]
		}
		e.fft.Coefficients(e.coeffs, e.frame)
		for k, c := range e.coeffs {
			e.power[k] = real(c)*real(c) + imag(c)*imag(c)
		}
		for i, f := range w.filters {
			var mel float64
			for j, v := range f.weights {
				mel += v * e.power[f.first+j]
			}
			v := float32(math.Log10(max(mel, whisperFloor)))
			dst[i*frames+t] = v
			top = max(top, v)
		}
	}
	floor := top - whisperRange
	for i, v := range dst {
		dst[i] = (max(v, floor) + 4) / 4
	}
	return nil
}

// pad centres the STFT: the chunk with its first and last 200 samples
// mirrored outside it, not repeating the edge sample (numpy's "reflect").
func (e *WhisperExtractor) pad(chunk []float32) {
	const half = whisperFFT / 2
	n := len(chunk)
	for i, x := range chunk {
		e.padded[half+i] = float64(x)
	}
	for i := 1; i <= half; i++ {
		e.padded[half-i] = float64(chunk[i])
		e.padded[half+n-1+i] = float64(chunk[n-1-i])
	}
}
