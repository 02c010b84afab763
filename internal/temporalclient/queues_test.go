package temporalclient

import (
	"slices"
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/spec"
)

func TestQueueNames(t *testing.T) {
	defaults := spec.Queues{CPU: spec.QueueCPU, GPU: spec.QueueGPU, Synth: spec.QueueSynth}
	for _, c := range []struct {
		in       []string
		want     []string
		workflow string
		err      string
	}{
		{[]string{"cpu", "synth", "gpu"}, []string{"floorbench-cpu", "floorbench-synth", "floorbench-gpu"}, "floorbench-cpu", ""},
		{[]string{"cpu=lab-cpu", "gpu=lab.gpu_2"}, []string{"lab-cpu", "lab.gpu_2"}, "lab-cpu", ""},
		{[]string{"gpu"}, []string{"floorbench-gpu"}, "", ""},
		{[]string{"tpu"}, nil, "", `unknown kind "tpu"`},
		{[]string{"cpu=a b"}, nil, "", `queue name "a b"`},
		{[]string{"cpu=x", "gpu=x"}, nil, "", `queue "x" named twice`},
	} {
		got, wf, err := QueueNames(c.in, defaults)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: error %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, c.want) || wf != c.workflow {
			t.Errorf("%q: %q, %q, %v; want %q, %q", c.in, got, wf, err, c.want, c.workflow)
		}
	}
}
