package detect

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/floorbench/floorbench/internal/testenv"
)

// requireTool skips a test whose tool is missing, or fails it where
// scripts/test.sh demands every tool (FLOORBENCH_REQUIRE_TOOLS=1).
func requireTool(t testing.TB, ok bool, what string) {
	t.Helper()
	if ok {
		return
	}
	msg := what + " is not installed (run scripts/setup.sh test)"
	if testenv.Required() {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// onnxRuntime returns the test runtime and requires the setup's onnx
// component: the ONNX Runtime library and the Silero model.
func onnxRuntime(t testing.TB) Runtime {
	t.Helper()
	rt := RuntimeFromEnv()
	rt.Device = DeviceCPU
	_, libErr := os.Stat(rt.libraryPath())
	_, modelErr := os.Stat(filepath.Join(rt.Tools, SileroModelPath))
	requireTool(t, libErr == nil && modelErr == nil, "ONNX Runtime or the Silero model (setup component onnx)")
	return rt
}

var speechCache sync.Map

// speech renders text with espeak-ng in the given voice and converts it to
// 16 kHz with sox, then trims the leading and trailing silence espeak adds,
// so that the utterance's extent is where its samples are.
func speech(t testing.TB, voice, text string) []float32 {
	t.Helper()
	key := voice + "\x00" + text
	if v, ok := speechCache.Load(key); ok {
		return v.([]float32)
	}
	_, espeakErr := exec.LookPath("espeak-ng")
	_, soxErr := exec.LookPath("sox")
	requireTool(t, espeakErr == nil && soxErr == nil, "espeak-ng or sox (setup component speech)")
	cmd := exec.Command("sh", "-c", `espeak-ng -v "$1" --stdout "$2" | sox -t wav - -t raw -r 16000 -e signed-integer -b 16 -c 1 -`, "sh", voice, text)
	raw, err := cmd.Output()
	if err != nil {
		t.Fatalf("render %q: %v", text, err)
	}
	pcm := make([]float32, len(raw)/2)
	for i := range pcm {
		pcm[i] = float32(int16(binary.LittleEndian.Uint16(raw[2*i:]))) / 32768
	}
	first, last := -1, -1
	for i, s := range pcm {
		if math.Abs(float64(s)) > 0.01 {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 {
		t.Fatalf("render %q: no speech in the output", text)
	}
	pcm = pcm[first : last+1]
	speechCache.Store(key, pcm)
	return pcm
}

// utterance places speech on one speaker's channel.
type utterance struct {
	speaker int // 0-based channel
	start   float64
	voice   string
	text    string
}

// placed is where an utterance's samples ended up.
type placed struct {
	speaker    int
	start, end float64
}

// conversation mixes utterances onto per-speaker channels with a little
// seeded noise (about -60 dBFS), as a channel-separated recording has.
func conversation(t testing.TB, id string, speakers int, duration float64, utts []utterance) (*Conversation, []placed) {
	t.Helper()
	n := int(duration * SampleRate)
	rng := rand.New(rand.NewPCG(1, uint64(speakers)))
	chans := make([][]float32, speakers)
	for k := range chans {
		chans[k] = make([]float32, n)
		for i := range chans[k] {
			chans[k][i] = float32(rng.NormFloat64() * 0.001)
		}
	}
	var where []placed
	for _, u := range utts {
		pcm := speech(t, u.voice, u.text)
		at := int(u.start * SampleRate)
		if at+len(pcm) > n {
			t.Fatalf("utterance %q at %.2fs runs past the %gs conversation", u.text, u.start, duration)
		}
		for i, s := range pcm {
			chans[u.speaker][at+i] += s
		}
		where = append(where, placed{u.speaker, u.start, float64(at+len(pcm)) / SampleRate})
	}
	return &Conversation{ID: id, SampleRate: SampleRate, Duration: duration, Channels: chans}, where
}

// dialogue is a two-speaker exchange with a hold pause, a backchannel, a
// handover and an interruption: the floor events the scores are about.
func dialogue(t testing.TB) (*Conversation, []placed) {
	return conversation(t, "dialogue", 2, 14, []utterance{
		{0, 0.40, "en-us", "I wanted to ask you about the schedule for tomorrow morning."},
		{1, 2.20, "en-gb+f2", "yeah"},
		{0, 4.10, "en-us", "Do you think we could move the meeting to ten?"},
		{1, 6.90, "en-gb+f2", "Ten works for me, but I need to check with the others first, because some of them travel."},
		{0, 9.00, "en-us", "Wait, I already asked them, and they all agreed."},
	})
}
