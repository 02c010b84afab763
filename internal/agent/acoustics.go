package agent

import (
	"fmt"
	"math"
	"strings"

	"github.com/floorbench/floorbench/internal/audio"
)

// Acoustics are conditions a harness plays a trial under beyond the
// scenario's own room (docs/agents.md#acoustic-conditions): noise added at
// a stated SNR, and the agent's own voice echoed into its input, as a
// speakerphone without echo cancellation does. The zero value is clean:
// the scenario as it was built. A run's acoustics are recorded with every
// trial and results are scored per agent, protocol and acoustics.
type Acoustics struct {
	// SNR adds pink noise this many dB under the tape's speech level
	// (SpeechLevel of the mix); nil adds none.
	SNR *float64 `yaml:"snr_db,omitempty" json:"snr_db,omitempty"`
	// Echo adds what a listener heard from the agent, EchoDelayMS later,
	// scaled by Echo dB; nil adds none.
	Echo        *float64 `yaml:"echo_db,omitempty" json:"echo_db,omitempty"`
	EchoDelayMS int      `yaml:"echo_delay_ms,omitempty" json:"echo_delay_ms,omitempty"`
}

// Defaults and bounds of the acoustic conditions: a speakerphone's echo
// comes back 100-300 ms later (the device's output and input buffers and
// the room) and 10-30 dB down without echo cancellation.
const (
	DefaultEchoDB      = -20.0
	DefaultEchoDelayMS = 200
	minSNR, maxSNR     = -10.0, 60.0
	minEchoDB          = -60.0
	// The echo of input frame k comes from output heard before frame k
	// is sent: at least one frame back.
	minEchoDelayMS = 20
	maxEchoDelayMS = 2000
)

// Clean reports whether a adds nothing.
func (a Acoustics) Clean() bool { return a.SNR == nil && a.Echo == nil }

// Filled is a with its defaults: an echo without a delay comes
// DefaultEchoDelayMS later.
func (a Acoustics) Filled() Acoustics {
	if a.Echo != nil && a.EchoDelayMS == 0 {
		a.EchoDelayMS = DefaultEchoDelayMS
	}
	return a
}

// Validate checks the conditions; the error starts with the field
// (snr_db, echo_db, echo_delay_ms) and names the value. NaN is out of
// every range.
func (a Acoustics) Validate() error {
	if a.SNR != nil && !(*a.SNR >= minSNR && *a.SNR <= maxSNR) {
		return fmt.Errorf("snr_db: %g (want %g to %g dB)", *a.SNR, minSNR, maxSNR)
	}
	if a.Echo == nil {
		if a.EchoDelayMS != 0 {
			return fmt.Errorf("echo_delay_ms: %d without echo_db", a.EchoDelayMS)
		}
		return nil
	}
	if !(*a.Echo >= minEchoDB && *a.Echo <= 0) {
		return fmt.Errorf("echo_db: %g (want %g to 0 dB)", *a.Echo, minEchoDB)
	}
	if a.EchoDelayMS < minEchoDelayMS || a.EchoDelayMS > maxEchoDelayMS {
		return fmt.Errorf("echo_delay_ms: %d (want %d to %d ms)", a.EchoDelayMS, minEchoDelayMS, maxEchoDelayMS)
	}
	return nil
}

// Label names the conditions in tables: "clean", "snr 10 dB",
// "echo -20 dB 200 ms", or both joined by ", ".
func (a Acoustics) Label() string {
	var parts []string
	if a.SNR != nil {
		parts = append(parts, fmt.Sprintf("snr %g dB", *a.SNR))
	}
	if a.Echo != nil {
		parts = append(parts, fmt.Sprintf("echo %g dB %d ms", *a.Echo, a.EchoDelayMS))
	}
	if len(parts) == 0 {
		return "clean"
	}
	return strings.Join(parts, ", ")
}

// SpeechLevel is how loud x is heard: the RMS of its active 20 ms frames,
// those within 20 dB of the loudest (0 for silence).
func SpeechLevel(x []float32) float64 {
	fr := audio.FrameRMS(x, FrameSamples)
	top := 0.0
	for _, v := range fr {
		top = max(top, v)
	}
	var s float64
	n := 0
	for _, v := range fr {
		if v > 0 && v >= top/10 {
			s += v * v
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return math.Sqrt(s / float64(n))
}
