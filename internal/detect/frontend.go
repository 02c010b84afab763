package detect

import (
	"fmt"
	"runtime"
	"slices"
	"strconv"

	"golang.org/x/sync/errgroup"

	"github.com/floorbench/floorbench/internal/features"
)

// Front ends of an onnx system: what the host computes from each row's
// window before the model reads it (docs/formats.md#onnx-front-ends).
const (
	// FrontEndWhisperLogMel: Whisper's log-mel spectrogram of the window,
	// [mel_bins, frame/160] per channel (Smart Turn v3: 80 bins of 8 s).
	FrontEndWhisperLogMel = "whisper-log-mel"
	// FrontEndWav2Vec2: the window's samples as Wav2Vec2FeatureExtractor
	// gives them, with an optional attention mask (Smart Turn v2).
	FrontEndWav2Vec2 = "wav2vec2"
)

// Where the zeros of a window go while fewer than frame samples have been
// heard, at a conversation's start.
const (
	// PadFront: the window as heard, zeros before the conversation's
	// start, and they count as audio: Smart Turn v3's inference.py
	// (pipecat-ai/smart-turn) pads a turn shorter than 8 s with zeros in
	// front (truncate_audio_to_last_n_seconds) before the feature
	// extractor normalises it (do_normalize=True).
	PadFront = "front"
	// PadBack: the samples heard first, then zeros; only the samples
	// heard are normalised, the zeros stay zero and the attention mask
	// is 0 over them: Hugging Face's padding="max_length" (padding side
	// right, padding value 0), as Smart Turn v2's inference.py calls
	// Wav2Vec2Processor with return_attention_mask=True.
	PadBack = "back"
)

// FrontEndSpec is an onnx system's front end. Its fields mirror the
// Hugging Face feature extractor's: MelBins is Whisper's feature_size,
// Normalize is do_normalize (zero mean and unit variance over the real
// samples, features.Normalize), AttentionMask names the int64 input that
// gets 1 for each sample heard and 0 for padding.
type FrontEndSpec struct {
	Kind          string `yaml:"kind" json:"kind"`
	MelBins       int    `yaml:"mel_bins,omitempty" json:"mel_bins,omitempty"`
	Normalize     bool   `yaml:"normalize,omitempty" json:"normalize"`
	Pad           string `yaml:"pad" json:"pad"`
	AttentionMask string `yaml:"attention_mask,omitempty" json:"attention_mask,omitempty"`
}

// check checks the front end's own fields and that the audio input's
// shape is the one it computes over o's frame.
func (f *FrontEndSpec) check(o *OnnxSpec) error {
	if o.SampleRate != SampleRate {
		// Both extractors refuse audio at another sampling_rate than
		// their 16 kHz, and Whisper's STFT (400 samples every 160) and
		// mel bank (0 to 8 kHz) are 16 kHz's.
		return fmt.Errorf("front_end %s: sample_rate %d: the front ends read 16000 Hz, as Hugging Face's feature extractors they follow do", f.Kind, o.SampleRate)
	}
	if f.Pad != PadFront && f.Pad != PadBack {
		return fmt.Errorf("front_end.pad %q: want %s or %s", f.Pad, PadFront, PadBack)
	}
	switch {
	case f.AttentionMask != "" && f.Kind != FrontEndWav2Vec2:
		return fmt.Errorf("front_end.attention_mask %q: only the %s front end gives one", f.AttentionMask, FrontEndWav2Vec2)
	case f.AttentionMask != "" && f.Pad != PadBack:
		return fmt.Errorf("front_end.attention_mask %q: needs pad: %s (with pad: %s every sample of the window is audio)", f.AttentionMask, PadBack, PadFront)
	}
	switch f.Kind {
	case FrontEndWhisperLogMel:
		if _, err := features.NewWhisperLogMel(f.MelBins, o.Frame); err != nil {
			return fmt.Errorf("front_end %s (mel_bins %d, frame %d): %w", f.Kind, f.MelBins, o.Frame, err)
		}
		return f.checkLogMelShape(o)
	case FrontEndWav2Vec2:
		if f.MelBins != 0 {
			return fmt.Errorf("front_end.mel_bins %d: the %s front end gives samples, not mel bins", f.MelBins, f.Kind)
		}
		if err := checkAudioShape(o.Audio.Shape, true); err != nil {
			return fmt.Errorf("audio.shape: %w", err)
		}
		return nil
	}
	return fmt.Errorf("front_end.kind %q: want %s or %s", f.Kind, FrontEndWhisperLogMel, FrontEndWav2Vec2)
}

// checkLogMelShape requires the audio shape [batch, (channels,) mel_bins,
// frame/160], naming the field the shape disagrees with.
func (f *FrontEndSpec) checkLogMelShape(o *OnnxSpec) error {
	frames := o.Frame / features.WhisperHop
	want := []string{"batch", strconv.Itoa(f.MelBins), strconv.Itoa(frames)}
	if slices.Contains(o.Audio.Shape, "channels") {
		want = slices.Insert(want, 1, "channels")
	}
	shape := o.Audio.Shape
	if slices.Equal(shape, want) {
		return nil
	}
	field := "audio.shape"
	if len(shape) == len(want) && shape[len(shape)-2] != want[len(want)-2] {
		field = fmt.Sprintf("front_end.mel_bins %d", f.MelBins)
	} else if len(shape) == len(want) && shape[len(shape)-1] != want[len(want)-1] {
		field = fmt.Sprintf("frame %d", o.Frame)
	}
	return fmt.Errorf("%s: input %q has shape %v, but %s over frame %d (%d samples a frame) with mel_bins %d gives %v",
		field, o.Audio.Name, shape, f.Kind, o.Frame, features.WhisperHop, f.MelBins, want)
}

// channelValues is how many values of the audio input one channel of a
// row fills.
func (o *OnnxSpec) channelValues() int {
	if f := o.FrontEnd; f != nil && f.Kind == FrontEndWhisperLogMel {
		return f.MelBins * (o.Frame / features.WhisperHop)
	}
	return o.Frame
}

// frontEnd computes one channel's model input from its window at a time,
// with buffers of its own: a stepper has one per goroutine that fills
// rows.
type frontEnd struct {
	spec  *FrontEndSpec
	frame int
	mel   *features.WhisperExtractor // whisper-log-mel only
	chunk []float32
}

func newFrontEnd(spec *FrontEndSpec, frame int, mel *features.WhisperLogMel) *frontEnd {
	f := &frontEnd{spec: spec, frame: frame, chunk: make([]float32, frame)}
	if mel != nil {
		f.mel = mel.Extractor()
	}
	return f
}

// fill writes to dst the model input of window, of which the last heard
// samples have been heard, and to mask (nil without an attention mask)
// which samples of the padded chunk are audio.
func (f *frontEnd) fill(dst []float32, mask []int64, window []float32, heard int) error {
	audio := f.frame
	if f.spec.Pad == PadBack {
		audio = heard
		copy(f.chunk, window[f.frame-heard:])
		clear(f.chunk[heard:])
	} else {
		copy(f.chunk, window)
	}
	if f.spec.Normalize {
		features.Normalize(f.chunk, audio)
	}
	if mask != nil {
		for i := range mask[:audio] {
			mask[i] = 1
		}
		clear(mask[audio:])
	}
	if f.mel != nil {
		return f.mel.Compute(dst, f.chunk)
	}
	copy(dst, f.chunk)
	return nil
}

// attentionMask is the name of the front end's attention mask input, ""
// without one.
func (o *OnnxSpec) attentionMask() string {
	if o.FrontEnd == nil {
		return ""
	}
	return o.FrontEnd.AttentionMask
}

// rowFeatures moves each row's count of samples heard on by a hop and
// fills every batch's audio input (and attention mask) from its rows'
// windows: every channel of every row, whichever batch holds it (one of
// every row, or one per row for a model whose batch is fixed at 1), is
// one chunk. Up to GOMAXPROCS workers share the chunks, worker w taking
// every workers-th from chunk w, each with a front end of its own (a mel
// extractor's FFT buffers): a fixed set of workers in an errgroup rather
// than a goroutine a chunk under SetLimit, which would have to borrow and
// return a front end for every chunk.
func (s *onnxStepper) rowFeatures() error {
	spec := s.model.spec
	channels, frame, per := spec.channels(), spec.Frame, spec.channelValues()
	rows := 0
	for _, b := range s.batches {
		for r := range b.heard {
			b.heard[r] = min(frame, b.heard[r]+spec.Hop)
		}
		rows += b.rows
	}
	chunks := rows * channels
	workers := min(runtime.GOMAXPROCS(0), chunks)
	for len(s.fronts) < workers {
		s.fronts = append(s.fronts, newFrontEnd(spec.FrontEnd, frame, s.model.mel))
	}
	fill := func(w int) error {
		for i := w; i < chunks; i += workers {
			// Chunk i is row i/channels' channel i%channels, chunk j of
			// its batch.
			b, r := s.row(i / channels)
			j := r*channels + i%channels
			var m []int64
			if b.mask != nil {
				m = b.mask.GetData()[j*frame:][:frame]
			}
			if err := s.fronts[w].fill(b.audio[0].GetData()[j*per:][:per], m, b.windows[j*frame:][:frame], b.heard[r]); err != nil {
				return err
			}
		}
		return nil
	}
	if workers <= 1 {
		return fill(0)
	}
	var g errgroup.Group
	for w := range workers {
		g.Go(func() error { return fill(w) })
	}
	return g.Wait()
}
