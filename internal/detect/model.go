package detect

// model is the first stage of a detector that scores audio: it turns each
// speaker's channel into values at its own hop (voice activity, or for some
// onnx models direct EOT and INT scores), causally. A model holds what all
// conversations share (an ONNX Runtime session); start begins one
// conversation.
type model interface {
	outputs() modelOutputs
	start(speakers int) (modelRun, error)
	close() error
}

// modelOutputs says what a model's values are: output t has role roles[t]
// (RoleActivity, RoleEOT or RoleINT), and value j of every output covers
// the samples before (j+1)·hop; it becomes known once they have been
// heard, or, for an onnx model whose step gives several values or that
// reads another sample rate, once its step completes.
type modelOutputs struct {
	hop   int
	roles []string
}

// activityOnly is the outputs' roles of a voice activity detector.
var activityOnly = []string{RoleActivity}

// modelRun is a model part way through one conversation, holding what
// carries from step to step: the samples of a window not yet complete,
// recurrent state, a VAD's own state.
type modelRun interface {
	// push consumes the next samples of every channel (equal lengths, any
	// count) and appends to out[t][k] output t's values for speaker k that
	// they complete, in order.
	push(channels [][]float32, out [][][]float32) error
	close() error
}

// framer cuts one channel into the windows a model reads as samples
// arrive: window j holds the frame samples that end at sample (j+1)·hop,
// zeros before the channel's start, so a model whose frame is longer than
// its hop sees frame − hop samples of context before each hop's new ones.
type framer struct {
	frame, hop int
	buf        []float32
	start      int // where the next window begins in buf
}

func newFramer(frame, hop int) *framer {
	return &framer{frame: frame, hop: hop, buf: make([]float32, frame-hop, 2*frame)}
}

// add appends samples heard, first dropping those no window needs any more.
func (f *framer) add(samples []float32) {
	if f.start > 0 {
		f.buf, f.start = f.buf[:copy(f.buf, f.buf[f.start:])], 0
	}
	f.buf = append(f.buf, samples...)
}

// window returns the next window if all its samples have been added; it is
// valid until the next add.
func (f *framer) window() ([]float32, bool) {
	if len(f.buf)-f.start < f.frame {
		return nil, false
	}
	return f.buf[f.start : f.start+f.frame], true
}

// advance moves on to the window after.
func (f *framer) advance() { f.start += f.hop }

// framers makes one framer per channel.
func framers(channels, frame, hop int) []*framer {
	out := make([]*framer, channels)
	for k := range out {
		out[k] = newFramer(frame, hop)
	}
	return out
}
