package activities

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sync/semaphore"

	"github.com/floorbench/floorbench/internal/corpus"
	"github.com/floorbench/floorbench/internal/floor"
)

// MemoryBudget admits the memory-heavy steps of a worker's activities (a
// conversation's audio through a detector, an evaluation's score tracks)
// against a budget in bytes, so a worker's peak follows the work in
// flight, not the number of activities its queues hand it. A step larger
// than the whole budget runs alone. A nil budget admits everything.
type MemoryBudget struct {
	sem   *semaphore.Weighted
	bytes int64
}

// NewMemoryBudget is a budget of n bytes (at least 64 MiB).
func NewMemoryBudget(n int64) *MemoryBudget {
	n = max(n, 64<<20)
	return &MemoryBudget{sem: semaphore.NewWeighted(n), bytes: n}
}

// Bytes is the budget's size.
func (b *MemoryBudget) Bytes() int64 { return b.bytes }

// admit waits until n bytes fit the budget (or ctx ends) and returns the
// release. Callers heartbeat meanwhile (keepAlive), so a wait is not
// mistaken for a dead worker.
func (b *MemoryBudget) admit(ctx context.Context, n int64) (release func(), err error) {
	if b == nil {
		return func() {}, nil
	}
	n = min(max(n, 1), b.bytes)
	if err := b.sem.Acquire(ctx, n); err != nil {
		return nil, err
	}
	return func() { b.sem.Release(n) }, nil
}

// tryAdmit admits n bytes if they fit the budget now.
func (b *MemoryBudget) tryAdmit(n int64) (release func(), ok bool) {
	if b == nil {
		return func() {}, true
	}
	n = min(max(n, 1), b.bytes)
	if !b.sem.TryAcquire(n) {
		return nil, false
	}
	return func() { b.sem.Release(n) }, true
}

// Estimates of what a step holds at its peak. They are upper bounds of
// the data, with room for the copies decoding and resampling make; the
// benchmark of a full sweep (README) checks them against measured peaks.
const (
	// inferBytesPerSample: a channel's samples as float32, read from the
	// WAV (int16 buffer), resampled where needed and framed by the
	// detector.
	inferBytesPerSample = 16
	// modelBytesPerChannel: what a running conversation of a model stage
	// holds per speaker channel, read a block at a time
	// (detect.Conversation.Open): the WAV decoder's buffers, the
	// resampler's, the chunk of the timeline its rows read next and their
	// framers' windows (docs/performance.md#streaming-model-stages).
	modelBytesPerChannel = 1 << 20
	// modelOutputBytesPerSecond: a channel's model output as the stage
	// holds it until the conversation ends: up to three outputs (voice
	// activity, EOT, INT) as float32 at up to 100 values a second.
	modelOutputBytesPerSecond = 3 * 100 * 4
	// evalBytesPerFrame: a track frame as float64 in the probability file
	// being decoded, in its track and in the sweep's sorted edges.
	evalBytesPerFrame = 48
	// evalMaxFrameRate bounds a detector's frame rate for the estimate
	// (rates are 31.25–100 Hz).
	evalMaxFrameRate = 100
)

// inferCost is the memory a conversation's detection holds.
func inferCost(conv corpus.Conversation) int64 {
	return int64(conv.Samples) * int64(conv.Speakers) * inferBytesPerSample
}

// modelCost is the memory a running conversation of a model stage holds:
// a window of each channel and its output so far, not its channels whole.
func modelCost(conv corpus.Conversation) int64 {
	return int64(conv.Speakers) * (modelBytesPerChannel + int64(conv.Duration*modelOutputBytesPerSecond))
}

// evaluateCost is the memory an evaluation's tracks hold: one task's at a
// time (Activities.evaluateByTask), both splits.
func evaluateCost(golds ...*floor.GoldSet) int64 {
	var n int64
	for _, g := range golds {
		if g == nil {
			continue
		}
		for i := range g.Conversations {
			c := &g.Conversations[i]
			speakers, _ := c.Speakers(g.Dyadic())
			n += int64(c.Duration*evalMaxFrameRate) * int64(speakers) * evalBytesPerFrame
		}
	}
	return n
}

// DefaultMemoryBytes is a worker's default budget: half of the memory it
// may use (its cgroup's limit where one is set, else the machine's), the
// rest left to the Go runtime, the ONNX sessions and the page cache.
func DefaultMemoryBytes() int64 {
	total := machineMemory()
	if limit := cgroupMemoryLimit(); limit > 0 && (total == 0 || limit < total) {
		total = limit
	}
	if total == 0 {
		return 2 << 30
	}
	return total / 2
}

// ParseBytes reads a size such as 2GiB, 512MiB, 1500000000 or 3G.
func ParseBytes(s string) (int64, error) {
	t := strings.TrimSpace(s)
	units := []struct {
		suffix string
		scale  int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"G", 1e9}, {"M", 1e6}, {"K", 1e3}, {"B", 1}}
	scale := int64(1)
	for _, u := range units {
		if strings.HasSuffix(t, u.suffix) {
			t, scale = strings.TrimSuffix(t, u.suffix), u.scale
			break
		}
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(t), 64)
	if err != nil || !(v > 0) || v*float64(scale) > 1<<50 {
		return 0, fmt.Errorf("size %q: want a positive number of bytes, optionally with B, K, M, G, KiB, MiB or GiB", s)
	}
	return int64(v * float64(scale)), nil
}

func machineMemory() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	return 0
}

// cgroupMemoryLimit is the cgroup v2 memory.max of this process, 0 when
// unlimited or unknown (a container's limit on Kubernetes).
func cgroupMemoryLimit() int64 {
	data, err := os.ReadFile("/sys/fs/cgroup/memory.max")
	if err != nil {
		return 0
	}
	v, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
	if err != nil {
		return 0
	}
	return v
}
