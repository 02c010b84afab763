package detect

import (
	"context"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/features/reference"
	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/limits"
)

// examplesDir holds the example specs (docs/systems.md).
var examplesDir = filepath.Join("..", "..", "examples", "systems")

// An exampleContract is how the test runs one example spec: the stand-in
// of its model's contract (onnxcontracts_test.go, frontend_test.go), the
// conversation it scores, the model's hop, the tasks the spec scores and,
// for each speaker, each output's value j as the test computes it from
// the channels without the system (want[role index](k, j)).
type exampleContract struct {
	model func(t *testing.T) string
	conv  func(t *testing.T) *Conversation
	hop   int
	tasks []floor.Task
	// given is how many values of a track the model's steps give; the
	// rest repeat the last.
	given func(c *Conversation) int
	// every checks each every-th value (the front ends' reference is
	// slow); 1 checks them all.
	every int
	tol   float64
	want  func(c *Conversation) []func(k, j int) float64
}

func dialogueOf(t *testing.T) *Conversation { c, _ := dialogue(t); return c }

// buzzing is a short two-speaker conversation for the front ends.
func buzzing(*testing.T) *Conversation {
	return &Conversation{ID: "buzz", SampleRate: SampleRate, Duration: 3,
		Channels: [][]float32{buzz(3, 0.2, 140, 21), buzz(3, 1.3, 210, 22)}}
}

var exampleContracts = map[string]exampleContract{
	"vap": {model: vapModel, conv: dialogueOf, hop: 320, tasks: floor.Tasks, every: 1, tol: 1e-5,
		given: func(c *Conversation) int { return samplesIn(c.Duration) / 80000 * 250 },
		want: func(c *Conversation) []func(k, j int) float64 {
			frame := func(x []float32, j int) float64 { return meanAbs(x, 320*j, 320*(j+1)) }
			rests := make([][]float32, len(c.Channels))
			for k := range rests {
				rests[k] = restOf(c, k)
			}
			return []func(k, j int) float64{
				func(k, j int) float64 { // p_future, the rest's column
					a, b := frame(c.Channels[k], j), frame(rests[k], j)
					return math.Exp(10*b) / (math.Exp(10*a) + math.Exp(10*b))
				},
				func(k, j int) float64 { return frame(c.Channels[k], j) }, // p_now, own
			}
		}},
	"maai-vap": {model: maaiModel, conv: dialogueOf, hop: 800, tasks: floor.Tasks, every: 1, tol: 1e-6,
		given: func(c *Conversation) int { return samplesIn(c.Duration) / 800 },
		want: func(c *Conversation) []func(k, j int) float64 {
			const meanW = 257.0 / 512
			enc := func(k, n int) float64 { // step n's e1 of row k
				if n < 0 {
					return 0
				}
				return meanAbs(c.Channels[k], 800*(n+1)-1120, 800*(n+1)) * meanW
			}
			return []func(k, j int) float64{
				func(k, n int) float64 { return enc(k, n-99) }, // p_future[1]: oldest e1
				func(k, n int) float64 { // p_now[0]: the e1 context's mean
					var sum float64
					for m := n - 99; m < n; m++ {
						sum += enc(k, m)
					}
					return sum / 99
				},
			}
		}},
	"turn-1-mini": {model: turn1MiniModel, conv: dialogueOf, hop: 320, tasks: []floor.Task{floor.TaskEOT}, every: 1, tol: 1e-6,
		given: func(c *Conversation) int { return samplesIn(c.Duration) / 2560 * 8 },
		want: func(c *Conversation) []func(k, j int) float64 {
			return []func(k, j int) float64{func(k, j int) float64 {
				return meanAbs(c.Channels[k], 320*j, 320*(j+1)) / float64(1+max(j/8-6, 0))
			}}
		}},
	"smart-turn-v3-audio": {model: smartTurnModel, conv: dialogueOf, hop: 1600, tasks: []floor.Task{floor.TaskEOT}, every: 1, tol: 1e-6,
		given: func(c *Conversation) int { return samplesIn(c.Duration) / 1600 },
		want: func(c *Conversation) []func(k, j int) float64 {
			return []func(k, j int) float64{func(k, n int) float64 {
				return meanAbs(c.Channels[k], 1600*(n+1)-128000, 1600*(n+1))
			}}
		}},
	// The official file's batch is fixed at 1, as the stand-in's is.
	"smart-turn-v3": {model: func(t *testing.T) string { return writeSmartTurnV3Batch(t, 1, 80, 800) },
		conv: buzzing, hop: 1600, tasks: []floor.Task{floor.TaskEOT}, every: 7, tol: 1e-4,
		given: func(c *Conversation) int { return samplesIn(c.Duration) / 1600 },
		want: func(c *Conversation) []func(k, j int) float64 {
			return []func(k, j int) float64{func(k, j int) float64 {
				w, _ := window(c.Channels[k], (j+1)*1600, 128000)
				var sum float64
				for _, bin := range reference.LogMel(reference.Normalized(w, len(w)), 80) {
					for _, v := range bin {
						sum += v
					}
				}
				return 1 / (1 + math.Exp(-sum/(80*800)))
			}}
		}},
	"smart-turn-v2": {model: func(t *testing.T) string { return writeSmartTurnV2(t, 256000) },
		conv: buzzing, hop: 1600, tasks: []floor.Task{floor.TaskEOT}, every: 1, tol: 5e-5,
		given: func(c *Conversation) int { return samplesIn(c.Duration) / 1600 },
		want: func(c *Conversation) []func(k, j int) float64 {
			const frame = 256000
			return []func(k, j int) float64{func(k, j int) float64 {
				w, heard := window(c.Channels[k], (j+1)*1600, frame)
				in := reference.Normalized(append(w[frame-heard:], make([]float32, frame-heard)...), heard)
				var level float64
				for _, v := range in {
					level += math.Abs(float64(v))
				}
				return 1 / (1 + math.Exp(-(level/frame - float64(heard)/frame)))
			}}
		}},
}

// exampleEndpoints are the example specs that need an endpoint: they are
// loaded and checked, not run (realtimevad_test.go runs the family).
var exampleEndpoints = map[string]string{
	"openai-server-vad":   "server_vad",
	"openai-semantic-vad": "semantic_vad",
}

// Every example spec (examples/systems) runs its contract's stand-in,
// found through ${FLOORBENCH_MODELS}, and each value of each track is the
// one the test computes from the channels: the spec reads the outputs,
// frames and columns the docs say. The realtime-vad examples load and name
// their turn detection and credential variable.
func TestExampleSystemSpecsRunTheirContracts(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(examplesDir, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no example specs in %s: %v", examplesDir, err)
	}
	var names []string
	for _, f := range files {
		names = append(names, strings.TrimSuffix(filepath.Base(f), ".yaml"))
	}
	for name := range exampleContracts {
		if !slices.Contains(names, name) {
			t.Errorf("examples/systems/%s.yaml is gone; its stand-in is still here", name)
		}
	}
	rt := onnxRuntime(t)
	// FLOORBENCH_STANDINS keeps the stand-ins in a folder of one's own, for
	// running an example at scale without its published file
	// (docs/performance.md#published-contracts-at-scale).
	if rt.Models = os.Getenv("FLOORBENCH_STANDINS"); rt.Models == "" {
		rt.Models = t.TempDir()
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			ex, s := loadExample(t, rt, name)
			if s == nil {
				return
			}
			c := ex.conv(t)
			runExample(t, s, rt, ex, c, ex.every)
		})
	}
}

// Every example spec runs its contract's stand-in over the tiny corpus's
// dev conversations (two to four speakers, 20 to 32 s, espeak-ng and
// flite voices over noise), as `floorbench detect` would run it on a
// corpus: the channels the corpus gives at 16 kHz, each value of each
// track the one the test computes from those channels. The front ends'
// reference is slow, so they run on the last dev conversation only (four
// speakers, 20 s), checked at every 100th value (one every 10 s) and the
// last.
func TestExampleSystemSpecsRunOnTheTinyCorpus(t *testing.T) {
	rt := onnxRuntime(t)
	tiny := tinyCorpus(t)
	var convs []*Conversation
	for _, entry := range tiny.Manifest.Conversations {
		if entry.Split != "dev" {
			continue
		}
		channels, err := tiny.Channels16k(entry)
		if err != nil {
			t.Fatal(err)
		}
		convs = append(convs, &Conversation{ID: entry.ID, SampleRate: SampleRate, Duration: entry.Duration, Channels: channels})
	}
	if len(convs) < 2 {
		t.Fatalf("the tiny corpus has %d dev conversations, want at least 2", len(convs))
	}
	rt.Models = t.TempDir()
	for _, name := range slices.Sorted(maps.Keys(exampleContracts)) {
		t.Run(name, func(t *testing.T) {
			ex, s := loadExample(t, rt, name)
			every, on := ex.every, convs
			if every > 1 {
				every, on = 100, convs[len(convs)-1:]
			}
			for _, c := range on {
				t.Run(c.ID, func(t *testing.T) { runExample(t, s, rt, ex, c, every) })
			}
		})
	}
}

// loadExample loads examples/systems/<name>.yaml and writes its contract's
// stand-in where the spec finds it; an endpoint example is checked and
// its system returned nil.
func loadExample(t *testing.T, rt Runtime, name string) (exampleContract, *System) {
	t.Helper()
	s, err := LoadSystem(filepath.Join(examplesDir, name+".yaml"), limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	if detection, ok := exampleEndpoints[name]; ok {
		checkEndpointExample(t, s, detection)
		return exampleContract{}, nil
	}
	ex, ok := exampleContracts[name]
	if !ok {
		t.Fatalf("examples/systems/%s.yaml has no stand-in of its contract here", name)
	}
	if err := os.Rename(ex.model(t), filepath.Join(rt.Models, name+".onnx")); err != nil {
		t.Fatal(err)
	}
	if tasks, err := s.Tasks(rt); err != nil || !slices.Equal(tasks, ex.tasks) {
		t.Fatalf("tasks %v (%v), want %v", tasks, err, ex.tasks)
	}
	return ex, s
}

// runExample runs system s on conversation c and checks each every-th
// value of each track (and the last given) against the example's want.
func runExample(t *testing.T, s *System, rt Runtime, ex exampleContract, c *Conversation, every int) {
	t.Helper()
	out, err := openModel(t, s, rt).Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if out.Hop != ex.hop {
		t.Fatalf("hop %d, want %d", out.Hop, ex.hop)
	}
	want := ex.want(c)
	if len(out.Values) != len(want) {
		t.Fatalf("%d outputs, want %d", len(out.Values), len(want))
	}
	given := ex.given(c)
	for o, w := range want {
		for k := range c.Channels {
			track := out.Values[o][k]
			checkTrack(t, out.Roles[o], track, given, ex.tol, func(j int) float64 {
				if j%every != 0 && j != given-1 {
					return float64(track[j])
				}
				return w(k, j)
			})
		}
	}
	scores, err := s.MapOutput(out)
	if err != nil {
		t.Fatal(err)
	}
	if (scores.INT != nil) != slices.Contains(ex.tasks, floor.TaskINT) {
		t.Errorf("INT tracks %v, want them only where the spec scores INT", scores.INT != nil)
	}
}

// checkEndpointExample checks a realtime-vad example: its family, its
// turn detection and the variable its credential is read from.
func checkEndpointExample(t *testing.T, s *System, detection string) {
	t.Helper()
	if s.family.Name != "realtime-vad" {
		t.Fatalf("family %s, want realtime-vad", s.family.Name)
	}
	for name, want := range map[string]any{"turn_detection": detection, "credential_env": "OPENAI_API_KEY", "url": "wss://api.openai.com/v1/realtime"} {
		if got := s.values[name]; got != want {
			t.Errorf("%s %v, want %v", name, got, want)
		}
	}
}
