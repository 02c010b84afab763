package backend

import (
	"bytes"
	"encoding/binary"
	"math"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/audio"
	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/openai"
	"github.com/floorbench/floorbench/internal/synth"
)

func generative() Config {
	return Config{Dialogue: OpenAIChat, DialogueEndpoint: "http://127.0.0.1:8000/v1", DialogueModel: "qwen2.5-7b-instruct",
		Voices: OpenAISpeech, VoicesEndpoint: "http://127.0.0.1:8880/v1", VoicesModel: "kokoro", VoicesNames: []string{"af_bella", "am_adam", "bf_emma", "bm_george", "af_sky", "am_michael"}}
}

func TestConfigValidateNamesTheKey(t *testing.T) {
	cases := []struct {
		name string
		edit func(*Config)
		want string
	}{
		{"unknown dialogue", func(c *Config) { c.Dialogue = "gpt" }, `--dialogue "gpt": want templates or openai-chat`},
		{"no endpoint", func(c *Config) { c.DialogueEndpoint = "" }, "--dialogue-endpoint: missing"},
		{"endpoint with a key", func(c *Config) { c.VoicesEndpoint = "http://h/v1?key=sk-123" }, "--voices-endpoint: want an http or https URL"},
		{"bad model", func(c *Config) { c.DialogueModel = "a b" }, `--dialogue-model "a b": want a model name`},
		{"no voices", func(c *Config) { c.VoicesNames = nil }, "--voices-names: missing"},
		{"voice twice", func(c *Config) { c.VoicesNames = []string{"a", "a"} }, "--voices-names: voice a named twice"},
		{"bad voice", func(c *Config) { c.VoicesNames = []string{"a/b"} }, `--voices-names: voice "a/b"`},
		{"bad format", func(c *Config) { c.VoicesFormat = "mp3" }, `--voices-format "mp3": want wav or pcm`},
		{"endpoint without backend", func(c *Config) { c.Voices = "" }, "--voices-endpoint, --voices-model, --voices-names and --voices-format: only with --voices openai-speech"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := generative()
			c.edit(&cfg)
			err := cfg.Validate("--")
			if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "sk-123") {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
		})
	}
	if err := generative().Validate("corpora[0].generate."); err != nil {
		t.Fatal(err)
	}
	bad := generative()
	bad.DialogueEndpoint = ""
	if err := bad.Validate("corpora[0].generate."); err == nil || err.Error() != "corpora[0].generate.dialogue_endpoint: missing" {
		t.Fatalf("spec key: %v", err)
	}
}

// The identity covers models, voices and format, not endpoints; the
// offline default has none, so its corpus hash is what it always was.
func TestIdentityCoversWhatDecidesOutputs(t *testing.T) {
	if (Config{}).Identity() != nil || (Config{}).Generative() {
		t.Fatal("the offline default has an identity")
	}
	base := keys.GeneratedCorpus("tiny", 1, synth.GeneratorVersion, generative().Identity())
	if base == keys.GeneratedCorpus("tiny", 1, synth.GeneratorVersion, nil) {
		t.Fatal("generative backends keep the offline corpus hash")
	}
	moved := generative()
	moved.DialogueEndpoint, moved.VoicesEndpoint = "https://llm.example.org/v1", "https://tts.example.org/v1"
	if keys.GeneratedCorpus("tiny", 1, synth.GeneratorVersion, moved.Identity()) != base {
		t.Fatal("moving the endpoints changed the corpus hash")
	}
	for name, edit := range map[string]func(*Config){
		"dialogue model": func(c *Config) { c.DialogueModel = "llama3.1:8b" },
		"voices model":   func(c *Config) { c.VoicesModel = "piper" },
		"voice names":    func(c *Config) { c.VoicesNames = c.VoicesNames[1:] },
		"format":         func(c *Config) { c.VoicesFormat = openai.FormatPCM },
		"templates":      func(c *Config) { c.Dialogue, c.DialogueEndpoint, c.DialogueModel = "", "", "" },
		"offline voices": func(c *Config) { c.Voices, c.VoicesEndpoint, c.VoicesModel, c.VoicesNames = "", "", "", nil },
	} {
		c := generative()
		edit(&c)
		if keys.GeneratedCorpus("tiny", 1, synth.GeneratorVersion, c.Identity()) == base {
			t.Errorf("another %s keeps the corpus hash", name)
		}
	}
}

// A named voice list is split by the offline rule when that gives the
// preset enough voices of each split (an inventory that always sufficed
// keeps its split), else with the dev voices spread evenly; a list
// shorter than the two needs together is one error saying how many.
func TestCheckPoolsSaysHowManyVoices(t *testing.T) {
	tiny, _ := synth.PresetByName("tiny", 1)
	c := generative()
	err := c.CheckPools(tiny, "--voices-names")
	if err == nil || err.Error() != "--voices-names: 6 voices; preset tiny needs 4 dev and 5 test voices: name at least 9" {
		t.Fatalf("err = %v", err)
	}
	c.VoicesNames = strings.Split("alloy,ash,ballad,coral,echo,fable,nova,onyx,sage,shimmer,verse", ",")
	pools, err := c.Pools(tiny, "--voices-names")
	if got, want := DescribePools(pools), "voices: dev ash, echo, nova, shimmer; test alloy, ballad, coral, fable, onyx, sage, verse"; err != nil || got != want {
		t.Fatalf("the hosted API's 11 voices: %q, %v; want %q", got, err, want)
	}
	c.VoicesNames = c.VoicesNames[:8]
	if err := c.CheckPools(tiny, "--voices-names"); err == nil || !strings.Contains(err.Error(), "8 voices") {
		t.Fatalf("8 voices: %v", err)
	}
	for len(c.VoicesNames) < 18 {
		c.VoicesNames = append(c.VoicesNames, "v"+string(rune('a'+len(c.VoicesNames))))
	}
	pools, err = c.Pools(tiny, "--voices-names")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(pools["dev"], synth.VoicePoolOf(c.Inventory(), "dev")) || !slices.Equal(pools["test"], synth.VoicePoolOf(c.Inventory(), "test")) {
		t.Fatalf("18 voices are split by another rule than every fifth: %s", DescribePools(pools))
	}
	for _, v := range pools["test"] {
		if slices.Contains(pools["dev"], v) {
			t.Fatalf("voice %s in both splits", v.ID)
		}
	}
}

func tone(rate, n int) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(0.5 * math.Sin(2*math.Pi*440*float64(i)/float64(rate)))
	}
	return x
}

func TestDecodeSpeechResamplesTo16k(t *testing.T) {
	var wav bytes.Buffer
	audio.EncodeWAV(&wav, tone(24000, 24000), 24000)
	var pcm bytes.Buffer
	for _, s := range tone(openai.PCMRate, openai.PCMRate/2) {
		binary.Write(&pcm, binary.LittleEndian, audio.PCM16(s))
	}
	for _, c := range []struct {
		format string
		data   []byte
		want   int
	}{{openai.FormatWAV, wav.Bytes(), 16000}, {openai.FormatPCM, pcm.Bytes(), 8000}} {
		x, err := DecodeSpeech(c.data, c.format, 10, limits.Default())
		if err != nil || len(x) != c.want {
			t.Fatalf("%s: %d samples, want %d (%v)", c.format, len(x), c.want, err)
		}
		if rms := audio.RMS(x); math.Abs(rms-0.5/math.Sqrt2) > 0.01 {
			t.Fatalf("%s: RMS %.3f after resampling", c.format, rms)
		}
	}
	for _, bad := range []struct {
		format string
		data   []byte
		want   string
	}{{openai.FormatPCM, []byte{1, 2, 3}, "odd number of bytes"}, {openai.FormatPCM, nil, "no samples"},
		{openai.FormatWAV, []byte("<html>rate limited</html>"), "audio: "}} {
		if _, err := DecodeSpeech(bad.data, bad.format, 10, limits.Default()); err == nil || !strings.Contains(err.Error(), bad.want) || strings.Contains(err.Error(), "rate limited") {
			t.Errorf("%s %q: %v", bad.format, bad.data, err)
		}
	}
}

// A speech answer lasts at most limits.SpeechSPerChar a character of its
// text, read from the WAV header or the pcm's size before anything is
// decoded: at the bound it is read, past it refused, and a 40 MB WAV at
// 1 kHz (5.5 hours) is refused without its samples being decoded.
func TestASpeechAnswerIsBoundedByItsText(t *testing.T) {
	lim := limits.Default()
	lim.SpeechSPerChar = 0.5
	wavOf := func(rate, n int) []byte {
		var b bytes.Buffer
		audio.EncodeWAV(&b, make([]float32, n), rate)
		return b.Bytes()
	}
	pcmOf := func(n int) []byte { return make([]byte, 2*n) }
	for _, c := range []struct {
		name, format string
		data         []byte
		ok           bool
	}{
		{"wav at the bound", openai.FormatWAV, wavOf(1000, 5000), true},
		{"wav past the bound", openai.FormatWAV, wavOf(1000, 5001), false},
		{"pcm at the bound", openai.FormatPCM, pcmOf(5 * openai.PCMRate), true},
		{"pcm past the bound", openai.FormatPCM, pcmOf(5*openai.PCMRate + 1), false},
	} {
		_, err := DecodeSpeech(c.data, c.format, 10, lim) // 10 characters: 5 s
		if c.ok != (err == nil) || (err != nil && !strings.Contains(err.Error(), "for 10 characters is over the limit of 0.5 s a character (5.0 s) (raise limits.speech_s_per_char")) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	huge := wavOf(1000, 20<<20)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := DecodeSpeech(huge, openai.FormatWAV, 100, limits.Default())
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "20971.5 s of audio for 100 characters") {
		t.Errorf("a 40 MB WAV at 1 kHz: %v", err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
		t.Errorf("refusing it allocated %d bytes", grew)
	}
}

func FuzzDecodeSpeech(f *testing.F) {
	var wav bytes.Buffer
	audio.EncodeWAV(&wav, tone(24000, 480), 24000)
	f.Add(wav.Bytes(), true)
	f.Add([]byte{0, 1, 2, 3}, false)
	f.Add([]byte("RIFF\x00\x00\x00\x00WAVE"), true)
	f.Fuzz(func(t *testing.T, data []byte, isWAV bool) {
		format := openai.FormatPCM
		if isWAV {
			format = openai.FormatWAV
		}
		x, err := DecodeSpeech(data, format, len(data), limits.Default())
		if err != nil {
			return
		}
		if len(x) == 0 {
			t.Fatal("no samples and no error")
		}
		if !isWAV && len(x) != audio.ResampledLength(int64(len(data)/2), openai.PCMRate, audio.Rate) {
			t.Fatalf("%d pcm bytes gave %d samples", len(data), len(x))
		}
	})
}
