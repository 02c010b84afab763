package agent

import (
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/limits"
)

func TestAcousticsLabelsAndBounds(t *testing.T) {
	snr, echo, loud := 10.0, -20.0, 3.0
	for _, c := range []struct {
		a     Acoustics
		label string
		err   string
	}{
		{Acoustics{}, "clean", ""},
		{Acoustics{SNR: &snr}, "snr 10 dB", ""},
		{Acoustics{Echo: &echo, EchoDelayMS: 200}, "echo -20 dB 200 ms", ""},
		{Acoustics{SNR: &snr, Echo: &echo, EchoDelayMS: 150}, "snr 10 dB, echo -20 dB 150 ms", ""},
		{Acoustics{Echo: &loud, EchoDelayMS: 200}, "", "echo_db: 3"},
		{Acoustics{Echo: &echo, EchoDelayMS: 10}, "", "echo_delay_ms: 10"},
		{Acoustics{EchoDelayMS: 200}, "", "without echo_db"},
	} {
		err := c.a.Validate()
		if c.err == "" && (err != nil || c.a.Label() != c.label) {
			t.Errorf("%+v: label %q, err %v; want %q", c.a, c.a.Label(), err, c.label)
		}
		if c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%+v: err %v, want one naming %q", c.a, err, c.err)
		}
	}
}

// Trials played under other acoustics are scored apart, clean first, and
// a recording keeps its acoustics.
func TestScoreSeparatesAcoustics(t *testing.T) {
	snr := 5.0
	dir := recordRun(t, 1, neverYield)
	trials, err := ReadTrials(dir, DefaultScoreParams(), limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	n := len(trials)
	for _, tr := range trials[:n] {
		tr.Acoustics = Acoustics{SNR: &snr}.Label()
		trials = append(trials, tr)
	}
	p := DefaultScoreParams()
	p.Bootstrap = 0
	r := Score(trials, p)
	if len(r.Agents) != 2 || r.Agents[0].Acoustics != "" || r.Agents[1].Acoustics != "snr 5 dB" || r.Agents[1].Trials != n {
		t.Fatalf("agents %+v", r.Agents)
	}
	if got := protocolCell(r.Agents[1]); got != "duplex (snr 5 dB)" {
		t.Errorf("protocol cell %q", got)
	}
}
