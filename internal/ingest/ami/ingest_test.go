package ami

import (
	"bytes"
	"context"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/audio"
	"github.com/floorbench/floorbench/internal/corpus"
	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/limits"
)

const amiNXT = "testdata/nxt"

// amiAudio writes the fixture meetings' headset files into a temporary
// folder: a 220 Hz tone wherever the words file has a timed word or vocal
// sound, silence elsewhere, 22.5 s (ES2099a) and 7 s (IB4099) long.
// ES2099a uses the AMI layout, its Headset-1 at 48 kHz stereo; IB4099 the
// flat layout, without Headset-2 (speaker C, who has words).
func amiAudio(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	nested := filepath.Join(dir, "ES2099a", "audio")
	for n, letter := range []string{"A", "B", "C", "D"} {
		rate, chans := 16000, 1
		if letter == "B" {
			rate, chans = 48000, 2
		}
		writeTestWAV(t, filepath.Join(nested, "ES2099a.Headset-"+string(rune('0'+n))+".wav"), toneAtWords(t, "ES2099a", letter, 22.5, rate), rate, chans)
	}
	for n, letter := range []string{"A", "B"} {
		writeTestWAV(t, filepath.Join(dir, "IB4099.Headset-"+string(rune('0'+n))+".wav"), toneAtWords(t, "IB4099", letter, 7, 16000), 16000, 1)
	}
	return dir
}

func toneAtWords(t *testing.T, meeting, letter string, seconds float64, rate int) []float32 {
	t.Helper()
	w, err := readNXT(nxtPath(amiNXT, "words", meeting, letter, "words"), limits.Default(), parseNXTWords)
	if err != nil {
		t.Fatal(err)
	}
	x := make([]float32, int(seconds*float64(rate)))
	for _, tok := range w.Tokens {
		if !tok.Timed || tok.Punc || (tok.Name != nxtWord && tok.Name != nxtVocalSound) {
			continue
		}
		for i := int(tok.Start * float64(rate)); i < int(tok.End*float64(rate)) && i < len(x); i++ {
			x[i] = float32(0.3 * math.Sin(2*math.Pi*220*float64(i)/float64(rate)))
		}
	}
	return x
}

// writeTestWAV writes PCM16 with chans identical channels.
func writeTestWAV(t *testing.T, path string, x []float32, rate, chans int) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	data := uint32(2 * chans * len(x))
	put := func(v any) { binary.Write(&b, binary.LittleEndian, v) }
	b.WriteString("RIFF")
	put(36 + data)
	b.WriteString("WAVEfmt ")
	put(uint32(16))
	put(uint16(1))
	put(uint16(chans))
	put(uint32(rate))
	put(uint32(rate * chans * 2))
	put(uint16(chans * 2))
	put(uint16(16))
	b.WriteString("data")
	put(data)
	for _, v := range x {
		for range chans {
			put(audio.PCM16(v))
		}
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func writeMeetings(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "meetings.txt")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

const fixtureMeetings = "# AMI fixture\nES2099a test\n\nIB4099 dev # non-scenario\n"

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestAMIFloorRulesOnFixture(t *testing.T) {
	m, err := readAMIMeeting(amiNXT, "ES2099a", limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	var r MeetingReport
	events := deriveMeeting(floor.DefaultAMIRules, m.Speakers[:4], &r)
	r.count(events)
	want := []struct {
		kind           floor.EventKind
		speaker        int
		start, end     float64
		before, after  int
		ending         floor.TurnEnding
		holds, words   int
		firstHoldStart float64
	}{
		{floor.Turn, 1, 1.0, 6.99, 0, 0, floor.Yielded, 2, 17, 2.73},
		{floor.Backchannel, 2, 3.0, 3.3, 1, 1, "", 0, 1, 0}, // lexical "Mm-hmm" in A's hold
		{floor.NonContent, 3, 6.0, 6.4, 1, 1, "", 0, 0, 0},  // C laughs while A speaks
		{floor.Turn, 2, 8.0, 11.08, 0, 3, floor.Interrupted, 0, 11, 0},
		{floor.Backchannel, 3, 8.9, 9.5, 2, 2, "", 0, 3, 0},     // "that sounds good": a Backchannel dialogue act
		{floor.Interruption, 3, 10.4, 11.08, 2, 3, "", 0, 3, 0}, // "wait no that" over B, who stops 0.68 s later
		{floor.Turn, 3, 11.08, 14.6, 3, 0, floor.Yielded, 1, 8, 12.5},
		{floor.InterruptionAttempt, 1, 13.6, 14.5, 3, 3, "", 0, 5, 0},
		{floor.Turn, 2, 15.4, 18.39, 0, 0, floor.Yielded, 1, 8, 16.85},
		{floor.NonFloorTakingInterruption, 1, 16.0, 16.4, 2, 2, "", 0, 1, 0},
		{floor.Turn, 1, 19.5, 20.93, 0, 0, floor.Yielded, 0, 6, 0},
		{floor.NonContent, 1, 21.5, 21.9, 0, 0, "", 0, 0, 0}, // A's cough after their turn does not extend it
	}
	if len(events) != len(want) {
		t.Fatalf("%d events, want %d: %+v", len(events), len(want), events)
	}
	for i, w := range want {
		e := events[i]
		if e.Kind != w.kind || e.Speaker != w.speaker || !near(e.Start, w.start) || !near(e.End, w.end) ||
			e.FloorBefore != w.before || e.FloorAfter != w.after || e.Ending != w.ending || len(e.Holds) != w.holds || e.Words != w.words {
			t.Errorf("event %d: %+v\nwant %+v", i, e, w)
		}
		if w.holds > 0 && !near(e.Holds[0].Start, w.firstHoldStart) {
			t.Errorf("event %d: first hold %+v, want start %v", i, e.Holds[0], w.firstHoldStart)
		}
	}
	// A's second hold follows "is that clear ?": a hold after a question.
	if h := events[0].Holds[1]; !near(h.Start, 4.29) || !near(h.End, 5.0) || !h.AfterQuestion || events[0].Holds[0].AfterQuestion {
		t.Errorf("A's holds %+v", events[0].Holds)
	}
	if r.Words != 63 || r.WordsDropped != 1 || r.Segments != 9 || r.SegmentsOverlap != 1 || r.DABackchannels != 1 {
		t.Errorf("counts %+v", r.Counts)
	}
}

// TestIngestAMIGold ingests both fixture meetings and checks the manifest,
// the gold DeriveMPTB makes of the derived events and `corpus check`.
func TestIngestAMIGold(t *testing.T) {
	out := filepath.Join(t.TempDir(), "ami")
	rep, err := Ingest(context.Background(), Options{NXT: amiNXT, Audio: amiAudio(t), Meetings: writeMeetings(t, fixtureMeetings), Out: out})
	if err != nil {
		t.Fatal(err)
	}
	want := Counts{Words: 63 + 19, WordsDropped: 1, Segments: 9, SegmentsOverlap: 1, DABackchannels: 1, Turns: 7, Yielded: 6,
		InterruptedEnds: 1, Holds: 4, Backchannels: 3, Interruptions: 1, Attempts: 1, NonFloorTaking: 1, NonContent: 2, EventsExcluded: 1}
	if rep.Total != want {
		t.Errorf("total %+v\nwant  %+v", rep.Total, want)
	}
	if ib := rep.Meetings[1]; strings.Join(ib.SilentChannels, "") != "C" || strings.Join(ib.Channels, "") != "ABC" {
		t.Errorf("IB4099 channels %v, silent %v", ib.Channels, ib.SilentChannels)
	}
	c, err := corpus.Open(out, limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	es, ib := c.Manifest.Conversations[0], c.Manifest.Conversations[1]
	if es.ID != "es2099a" || es.Split != "test" || es.InteractionType != "scenario" || es.Speakers != 4 || strings.Join(es.Channels, "") != "ABCD" ||
		ib.ID != "ib4099" || ib.Split != "dev" || ib.InteractionType != "non-scenario" || !near(es.Duration, 22.5) || !near(ib.Duration, 7) {
		t.Errorf("manifest conversations %+v", c.Manifest.Conversations)
	}
	if n := len(c.Manifest.Source); n != 18 || c.Manifest.Source[0].Path != "audio/ES2099a/audio/ES2099a.Headset-0.wav" {
		t.Errorf("%d source files, first %+v", n, c.Manifest.Source)
	}
	g, err := corpus.Gold(out, "test", limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	cg := g.Conversations[0]
	if len(cg.INT.Positives) != 1 || cg.INT.Positives[0] != (floor.Anchor{Speaker: 3, Time: 10.4}) {
		t.Errorf("INT positives %+v", cg.INT.Positives)
	}
	if len(cg.EOT.Positives) != 4 || len(cg.EOT.Negatives) != 4 || len(cg.INT.Negatives) != 5 || len(cg.INT.Excluded) != 1 || len(cg.EOT.Excluded) != 1 {
		t.Errorf("gold %+v", cg)
	}
	if ex := cg.EOT.Excluded[0]; ex.Speaker != 2 || !near(ex.Start, 10.4) {
		t.Errorf("B's interrupted end is excluded from %v, want from the interruption at 10.4", ex)
	}
	r, err := corpus.Check(out, limits.Default())
	if err != nil || len(r.Problems) > 0 {
		t.Errorf("check: %v %v", err, r.Problems)
	}
	if _, err := corpus.ComputeStats(out, limits.Default()); err != nil {
		t.Errorf("stats: %v", err)
	}
	// The silent channel is silent and none of C's events are left.
	l, err := c.Events(ib)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range l.Events {
		if e.Speaker == 3 {
			t.Errorf("event of the silent channel kept: %+v", e)
		}
	}
	x, err := audio.ReadWAV16k(filepath.Join(out, "ib4099", corpus.ChannelName(3)))
	if err != nil || audio.Peak(x) != 0 || len(x) != ib.Samples {
		t.Errorf("silent channel: %v, peak %v, %d samples", err, audio.Peak(x), len(x))
	}
}

func TestIngestAMIIsDeterministic(t *testing.T) {
	audioDir, meetings := amiAudio(t), writeMeetings(t, fixtureMeetings)
	var trees []map[string][]byte
	for range 2 {
		out := filepath.Join(t.TempDir(), "ami")
		if _, err := Ingest(context.Background(), Options{NXT: amiNXT, Audio: audioDir, Meetings: meetings, Out: out}); err != nil {
			t.Fatal(err)
		}
		trees = append(trees, readTree(t, out))
	}
	if len(trees[0]) != 10 {
		t.Errorf("%d files", len(trees[0]))
	}
	for name, data := range trees[0] {
		if !bytes.Equal(data, trees[1][name]) {
			t.Errorf("%s differs between two ingests", name)
		}
	}
}

func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		out[rel(dir, p)] = data
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestIngestAMIBadInput breaks one input at a time: each failure is one
// error naming the file, and nothing is left at --out.
func TestIngestAMIBadInput(t *testing.T) {
	words := "words/ES2099a.A.words.xml"
	cases := []struct {
		name, file, from, to string
		meetings             string
		want                 []string
	}{
		{"dangling href", "segments/ES2099a.C.segments.xml", "id(ES2099a.C.words14)", "id(ES2099a.C.words99)", "",
			[]string{"ES2099a.C.segments.xml", "<segment> ES2099a.sync.C2", `id "ES2099a.C.words99" is not in ES2099a.C.words.xml`}},
		{"unknown element", words, `<disfmarker`, `<laughter`, "",
			[]string{"ES2099a.A.words.xml", "line 10", "unknown element <laughter>"}},
		{"malformed time", words, `starttime="3.50"`, `starttime="3,50"`, "",
			[]string{"ES2099a.A.words.xml", "<w> ES2099a.A.words8", `starttime=(not quoted) is not a time`}},
		{"dangling dialogue act type", "dialogueActs/ES2099a.C.dialog-act.xml", "ami_da_5", "ami_da_77", "",
			[]string{"ES2099a.C.dialog-act.xml", `da-aspect id "ami_da_77" is not in da-types.xml`}},
		{"meeting with no files", "", "", "", "ES2099a\nES2042b\n",
			[]string{"meeting ES2042b: no words files", "ES2042b.[A-E].words.xml"}},
		{"traversal", "", "", "", "../ES2099a\n", []string{`meeting id (not quoted)`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			nxt := copyNXT(t)
			if c.file != "" {
				path := filepath.Join(nxt, c.file)
				data, _ := os.ReadFile(path)
				if !bytes.Contains(data, []byte(c.from)) {
					t.Fatalf("%s lacks %q", c.file, c.from)
				}
				os.WriteFile(path, bytes.Replace(data, []byte(c.from), []byte(c.to), 1), 0o644)
			}
			meetings := c.meetings
			if meetings == "" {
				meetings = "ES2099a\n"
			}
			out := filepath.Join(t.TempDir(), "ami")
			_, err := Ingest(context.Background(), Options{NXT: nxt, Audio: amiAudio(t), Meetings: writeMeetings(t, meetings), Out: out})
			assertIngestFailed(t, err, out, c.want)
		})
	}
	t.Run("unreadable audio", func(t *testing.T) {
		audioDir := amiAudio(t)
		bad := filepath.Join(audioDir, "ES2099a", "audio", "ES2099a.Headset-2.wav")
		os.WriteFile(bad, []byte("RIFF....not audio"), 0o644)
		out := filepath.Join(t.TempDir(), "ami")
		_, err := Ingest(context.Background(), Options{NXT: amiNXT, Audio: audioDir, Meetings: writeMeetings(t, "ES2099a\n"), Out: out})
		assertIngestFailed(t, err, out, []string{"meeting ES2099a", bad})
	})
}

func assertIngestFailed(t *testing.T, err error, out string, want []string) {
	t.Helper()
	if err == nil {
		t.Fatal("no error")
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q lacks %q", err, w)
		}
	}
	if strings.Contains(err.Error(), "\n") {
		t.Errorf("error spans lines: %q", err)
	}
	if _, serr := os.Stat(out); !os.IsNotExist(serr) {
		t.Errorf("something was left at %s", out)
	}
	entries, _ := os.ReadDir(filepath.Dir(out))
	if len(entries) != 0 {
		t.Errorf("left %v beside --out", entries)
	}
}

// copyNXT copies the fixture annotations into a folder a test may change.
func copyNXT(t *testing.T) string {
	t.Helper()
	dst := t.TempDir()
	err := os.CopyFS(dst, os.DirFS(amiNXT))
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func TestReadMeetingList(t *testing.T) {
	cases := map[string]string{
		"ES2099a dev test\n": "want a meeting id and an optional split",
		"ES2099a train\n":    `split "train"`,
		"ES2099a\nes2099a\n": "listed twice",
		"# nothing\n\n":      "no meetings listed",
		"a/b\n":              `meeting id (not quoted)`,
	}
	for content, want := range cases {
		_, err := readMeetingList(writeMeetings(t, content), "test", limits.Default())
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err %v, want %q", content, err, want)
		}
	}
}
