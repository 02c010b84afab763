package detect

import (
	"fmt"
	"math"
)

var rmsParams = inStage(StageModel, []Param{
	{Name: "window_s", Kind: KindFloat, Default: 0.02, Doc: "analysis window and hop"},
	{Name: "threshold_db", Kind: KindFloat, Default: -50.0, Doc: "energy (dBFS) below which a window is never speech"},
	{Name: "margin_db", Kind: KindFloat, Default: 12.0, Doc: "energy above the tracked noise floor that counts as speech"},
	{Name: "floor_rise_db_per_s", Kind: KindFloat, Default: 3.0, Doc: "how fast the noise floor estimate may rise"},
	{Name: "hangover_s", Kind: KindFloat, Default: 0.2, Doc: "speech is held this long after the last loud window"},
})

// rmsModel is an energy voice-activity detector: a window is loud when its
// energy exceeds both threshold_db and the noise floor plus margin_db; the
// floor follows the quietest windows down at once and rises slowly, so it
// tracks the channel's noise rather than its speech. Activity is 1 while
// loud and for hangover_s after, else 0.
type rmsModel struct {
	window                      int
	threshold, margin, riseStep float64
	hangover                    int
}

func newRMSModel(v values) (*rmsModel, error) {
	window := int(math.Round(v.float("window_s") * SampleRate))
	if window < 1 {
		return nil, fmt.Errorf("rms: window_s must be at least one sample, got %v", v.float("window_s"))
	}
	if v.float("hangover_s") < 0 || v.float("floor_rise_db_per_s") < 0 {
		return nil, fmt.Errorf("rms: hangover_s and floor_rise_db_per_s must be >= 0")
	}
	return &rmsModel{
		window:    window,
		threshold: v.float("threshold_db"),
		margin:    v.float("margin_db"),
		riseStep:  v.float("floor_rise_db_per_s") * float64(window) / SampleRate,
		hangover:  int(math.Round(v.float("hangover_s") * SampleRate / float64(window))),
	}, nil
}

func (r *rmsModel) outputs() modelOutputs { return modelOutputs{hop: r.window, roles: activityOnly} }

func (r *rmsModel) start(speakers int) (modelRun, error) {
	run := &rmsRun{model: r, channels: make([]rmsChannel, speakers)}
	for k := range run.channels {
		run.channels[k] = rmsChannel{framer: newFramer(r.window, r.window), noiseFloor: math.Inf(1), sinceLoud: r.hangover + 1}
	}
	return run, nil
}

func (r *rmsModel) close() error { return nil }

// rmsRun is the rms detector part way through a conversation.
type rmsRun struct {
	model    *rmsModel
	channels []rmsChannel
}

// rmsChannel is one channel's state: its tracked noise floor and the
// windows since it was last loud.
type rmsChannel struct {
	*framer
	noiseFloor float64
	sinceLoud  int
}

func (r *rmsRun) push(channels [][]float32, out [][][]float32) error {
	m := r.model
	for k, ch := range channels {
		c := &r.channels[k]
		c.add(ch)
		for w, ok := c.window(); ok; w, ok = c.window() {
			c.advance()
			e := energyDB(w)
			if e < c.noiseFloor {
				c.noiseFloor = e
			} else {
				c.noiseFloor += m.riseStep
			}
			if e > m.threshold && e > c.noiseFloor+m.margin {
				c.sinceLoud = 0
			} else {
				c.sinceLoud++
			}
			var a float32
			if c.sinceLoud <= m.hangover {
				a = 1
			}
			out[0][k] = append(out[0][k], a)
		}
	}
	return nil
}

// energyDB is the mean power of x in dB relative to full scale.
func energyDB(x []float32) float64 {
	var sum float64
	for _, s := range x {
		sum += float64(s) * float64(s)
	}
	return 10 * math.Log10(sum/float64(len(x))+1e-12)
}

func (r *rmsRun) close() error { return nil }
