package harness

import (
	"math"
	"slices"
	"testing"

	"github.com/floorbench/floorbench/internal/agent"
	"github.com/floorbench/floorbench/internal/agent/proto"
	"github.com/floorbench/floorbench/internal/agent/refagent"
	"github.com/floorbench/floorbench/internal/audio"
)

// Noise at a stated SNR is exactly that far under the tape's speech
// level, and the same noise whenever the trial is played.
func TestNoiseIsAtTheStatedSNR(t *testing.T) {
	dir, s := tinyAgentSet(t)
	sc := &s.Scenarios[0]
	a, err := agent.LoadAudio(dir, sc)
	if err != nil {
		t.Fatal(err)
	}
	snr := 10.0
	o := DefaultOptions("a", "duplex", "")
	o.Acoustics.SNR = &snr
	played := func() []float32 {
		p := newPlayback(sc, a, o, 1)
		var noise []float32
		for k := range len(a.Mix) / proto.FrameSamples {
			f := p.frame(k)
			for i := range f {
				f[i] -= a.Mix[k*proto.FrameSamples+i]
			}
			noise = append(noise, f...)
		}
		return noise
	}
	noise := played()
	got := audio.DB(agent.SpeechLevel(a.Mix)) - audio.DB(audio.RMS(noise))
	if math.Abs(got-snr) > 0.2 {
		t.Errorf("noise %.2f dB under the speech, want %g", got, snr)
	}
	if !slices.Equal(noise, played()) {
		t.Error("the same trial played twice got different noise")
	}
}

// The echo is the agent's heard output, delay later and gain down.
func TestEchoIsTheHeardOutputDelayed(t *testing.T) {
	e := &echoPath{gain: 0.1, delay: 480}
	heard := make([]float32, 3*proto.FrameSamples)
	for i := range heard {
		heard[i] = float32(i%7) / 7
	}
	e.hear(heard[:proto.FrameSamples])
	e.hear(heard[proto.FrameSamples : 2*proto.FrameSamples])
	in := make([]float32, proto.FrameSamples)
	e.add(in, 2*proto.FrameSamples) // input samples 640-959 echo heard samples 160-479
	for i, v := range in {
		if want := float32(0.1 * float64(heard[2*proto.FrameSamples+i-480])); v != want {
			t.Fatalf("input sample %d: %g, want %g", i, v, want)
		}
	}
	late := make([]float32, proto.FrameSamples)
	e.add(late, 4*proto.FrameSamples) // echoes samples 800-1119: not heard yet
	if audio.Peak(late) != 0 {
		t.Error("output not yet heard was echoed")
	}
}

// A speakerphone's echo makes always-yield interrupt itself: it hears its
// own voice 200 ms after it starts and stops, long before any stimulus;
// never-yield, which does not listen while it talks, decides as it does
// clean. Both record the acoustics with every trial.
func TestEchoMakesAlwaysYieldInterruptItself(t *testing.T) {
	dir, s := tinyAgentSet(t)
	sub := *s
	sub.Scenarios = slices.DeleteFunc(slices.Clone(s.Scenarios), func(sc agent.Scenario) bool {
		return sc.Condition != agent.StartAfterEOT && sc.Condition != agent.StopOnInterruption
	})
	echo := -6.0
	ac := agent.Acoustics{Echo: &echo, EchoDelayMS: 200}
	for _, policy := range []string{refagent.AlwaysYield, refagent.NeverYield} {
		clean := runOn(t, dir, &sub, refagent.DefaultConfig(policy), policy, proto.DuplexName, agent.Acoustics{})
		echoed := runOn(t, dir, &sub, refagent.DefaultConfig(policy), policy, proto.DuplexName, ac)
		for id, tr := range echoed {
			sc, _ := sub.Scenario(id)
			if tr.Acoustics != "echo -6 dB 200 ms" {
				t.Errorf("%s: %s: acoustics %q", policy, id, tr.Acoustics)
			}
			i := slices.IndexFunc(tr.Speech, func(s agent.Segment) bool { return s.Onset >= sc.Cue-0.25 })
			if i < 0 {
				t.Fatalf("%s: %s: no speech after the cue: %v", policy, id, tr.Speech)
			}
			first := tr.Speech[i].Offset - tr.Speech[i].Onset
			t.Logf("%s: %s: first answer %.2f s, decision %+v", policy, id, first, tr.Decision)
			if policy == refagent.AlwaysYield && first > 0.5 {
				t.Errorf("always-yield: %s: its first answer lasts %.2f s under echo: it did not hear itself", id, first)
			}
			if policy == refagent.NeverYield && (first < 1 || tr.Decision.Acted != clean[id].Decision.Acted) {
				t.Errorf("never-yield: %s: first answer %.2f s, acted %v (clean %v)", id, first, tr.Decision.Acted, clean[id].Decision.Acted)
			}
		}
	}
}
