package detect

import (
	"context"
	"fmt"
	"math"
)

var rmsParams = []Param{
	{Name: "window_s", Kind: KindFloat, Default: 0.02, Doc: "analysis window and hop"},
	{Name: "threshold_db", Kind: KindFloat, Default: -50.0, Doc: "energy (dBFS) below which a window is never speech"},
	{Name: "margin_db", Kind: KindFloat, Default: 12.0, Doc: "energy above the tracked noise floor that counts as speech"},
	{Name: "floor_rise_db_per_s", Kind: KindFloat, Default: 3.0, Doc: "how fast the noise floor estimate may rise"},
	{Name: "hangover_s", Kind: KindFloat, Default: 0.2, Doc: "speech is held this long after the last loud window"},
}

// rmsActivity is an energy voice-activity detector: a window is loud when its
// energy exceeds both threshold_db and the noise floor plus margin_db; the
// floor follows the quietest windows down at once and rises slowly, so it
// tracks the channel's noise rather than its speech. Activity is 1 while
// loud and for hangover_s after, else 0.
type rmsActivity struct {
	window                      int
	threshold, margin, riseStep float64
	hangover                    int
}

func newRMSActivity(v values) (*rmsActivity, error) {
	window := int(math.Round(v.float("window_s") * SampleRate))
	if window < 1 {
		return nil, fmt.Errorf("rms: window_s must be at least one sample, got %v", v.float("window_s"))
	}
	if v.float("hangover_s") < 0 || v.float("floor_rise_db_per_s") < 0 {
		return nil, fmt.Errorf("rms: hangover_s and floor_rise_db_per_s must be >= 0")
	}
	return &rmsActivity{
		window:    window,
		threshold: v.float("threshold_db"),
		margin:    v.float("margin_db"),
		riseStep:  v.float("floor_rise_db_per_s") * float64(window) / SampleRate,
		hangover:  int(math.Round(v.float("hangover_s") * SampleRate / float64(window))),
	}, nil
}

func (r *rmsActivity) activity(ctx context.Context, channels [][]float32) (*activity, error) {
	act := newActivity(len(channels), r.window, r.window)
	for k, ch := range channels {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		n := steps(len(ch), r.window, r.window)
		values := make([]float32, n)
		noiseFloor, sinceLoud := math.Inf(1), r.hangover+1
		for j := range values {
			e := energyDB(ch[j*r.window : (j+1)*r.window])
			if e < noiseFloor {
				noiseFloor = e
			} else {
				noiseFloor += r.riseStep
			}
			if e > r.threshold && e > noiseFloor+r.margin {
				sinceLoud = 0
			} else {
				sinceLoud++
			}
			if sinceLoud <= r.hangover {
				values[j] = 1
			}
		}
		act.values[k] = values
	}
	return act, nil
}

// energyDB is the mean power of x in dB relative to full scale.
func energyDB(x []float32) float64 {
	var sum float64
	for _, s := range x {
		sum += float64(s) * float64(s)
	}
	return 10 * math.Log10(sum/float64(len(x))+1e-12)
}

func (r *rmsActivity) close() error { return nil }
