package turnbench

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/floorbench/floorbench/internal/audio"
	"github.com/floorbench/floorbench/internal/corpus"
	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/ingest/turnbench/tbfixture"
	"github.com/floorbench/floorbench/internal/limits"
)

// ingestFixture writes the default fixture's shards and ingests both.
func ingestFixture(t *testing.T) (out string, m *corpus.Manifest) {
	t.Helper()
	dir := t.TempDir()
	dev, test, err := tbfixture.WriteFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	out = filepath.Join(dir, "corpus")
	m, err = Ingest(Options{Parquet: []string{test, dev}, Out: out})
	if err != nil {
		t.Fatal(err)
	}
	return out, m
}

func TestIngestTurnBenchGoldMatchesDerivation(t *testing.T) {
	out, m := ingestFixture(t)
	var ids []string
	for _, c := range m.Conversations {
		ids = append(ids, c.ID)
	}
	if want := []string{"tb-001", "tb-002", "tb-101"}; !reflect.DeepEqual(ids, want) {
		t.Fatalf("conversations %v, want %v (sorted by id)", ids, want)
	}
	g, err := corpus.Gold(out, "dev", limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	fixture := map[string]tbfixture.Conversation{}
	for _, c := range tbfixture.Default() {
		fixture[c.ID] = c
	}
	want := tbfixture.Gold()
	if len(g.Conversations) != len(want) {
		t.Fatalf("dev gold has %d conversations, want %d", len(g.Conversations), len(want))
	}
	for i, got := range g.Conversations {
		if !sameGold(got, want[i]) {
			t.Errorf("%s: gold\n%+v\nwant (worked out by hand, see tbfixture.Gold)\n%+v", got.ID, got, want[i])
		}
	}
	if _, err := corpus.Gold(out, "test", limits.Default()); !errors.Is(err, corpus.ErrUnlabelled) || !strings.Contains(err.Error(), "tb-101") {
		t.Errorf("gold of the unlabelled test split: %v, want an error naming tb-101 and unlabelled", err)
	}
	for _, c := range m.Conversations {
		if c.Unlabelled != (c.Split == "test") || c.Duration != fixture[c.ID].Duration || c.InteractionType != fixture[c.ID].Type {
			t.Errorf("%s: manifest entry %+v", c.ID, c)
		}
	}
}

func TestIngestTurnBenchChannelsFollowTheAudio(t *testing.T) {
	out, m := ingestFixture(t)
	c, err := corpus.Open(out, limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	// tb-002 is FLAC at 44.1 kHz: speaker 2 speaks from 2.9 s to 4.2 s.
	conv := m.Conversations[1]
	paths := c.ChannelPaths(conv)
	x, err := readChannel(paths[1])
	if err != nil {
		t.Fatal(err)
	}
	if rms := rmsBetween(x, 3.5, 3.6); rms < 0.15 {
		t.Errorf("speaker 2 inside its turn: rms %.3f, want the 0.3 tone", rms)
	}
	if rms := rmsBetween(x, 1.0, 1.1); rms > 1e-3 {
		t.Errorf("speaker 2 while silent: rms %.4f", rms)
	}
	r, err := corpus.Check(out, limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Problems) > 0 || r.Annotations == 0 {
		t.Errorf("check: %d annotations, problems %v", r.Annotations, r.Problems)
	}
}

func TestIngestTurnBenchIsDeterministic(t *testing.T) {
	a, _ := ingestFixture(t)
	b, _ := ingestFixture(t)
	if diff := compareTrees(t, a, b); diff != "" {
		t.Error(diff)
	}
}

func TestIngestTurnBenchSplitFromFlag(t *testing.T) {
	dir := t.TempDir()
	tab, err := tbfixture.Build(tbfixture.Default()[:1])
	if err != nil {
		t.Fatal(err)
	}
	delete(tab.Columns, "split")
	path := filepath.Join(dir, "x.parquet")
	if err := tab.Write(path); err != nil {
		t.Fatal(err)
	}
	_, err = Ingest(Options{Parquet: []string{path}, Out: filepath.Join(dir, "a")})
	if err == nil || !strings.Contains(err.Error(), "--split") {
		t.Errorf("no split column and no --split: %v", err)
	}
	m, err := Ingest(Options{Parquet: []string{path}, Out: filepath.Join(dir, "b"), Split: "test"})
	if err != nil || m.Conversations[0].Split != "test" {
		t.Errorf("--split test: %v", err)
	}
}

// TestIngestTurnBenchUnlabelledWithoutColumns: a test shard may ship no
// annotation columns at all.
func TestIngestTurnBenchUnlabelledWithoutColumns(t *testing.T) {
	dir := t.TempDir()
	tab, err := tbfixture.Build(tbfixture.Default()[2:])
	if err != nil {
		t.Fatal(err)
	}
	for name := range tab.Columns {
		if strings.Contains(name, "_annotation_") {
			delete(tab.Columns, name)
		}
	}
	path := filepath.Join(dir, "test.parquet")
	if err := tab.Write(path); err != nil {
		t.Fatal(err)
	}
	m, err := Ingest(Options{Parquet: []string{path}, Out: filepath.Join(dir, "c")})
	if err != nil || !m.Conversations[0].Unlabelled {
		t.Fatalf("ingest: %v", err)
	}
}

func TestIngestTurnBenchStereoColumn(t *testing.T) {
	dir := t.TempDir()
	convs := tbfixture.Default()[1:2]
	tab, err := tbfixture.Build(convs)
	if err != nil {
		t.Fatal(err)
	}
	// One stereo WAV in an "audio" column instead of one column per speaker.
	chans := make([][]float32, 2)
	for k := range chans {
		st := tab.Rows[0][audioColumn(k+1)].(map[string]any)
		x, _, err := decodeBytes(st["bytes"].([]byte))
		if err != nil {
			t.Fatal(err)
		}
		chans[k] = x[0]
		delete(tab.Rows[0], audioColumn(k+1))
		delete(tab.Columns, audioColumn(k+1))
	}
	tab.Columns[colStereo] = tbfixture.AudioColumn()
	tab.Rows[0][colStereo] = map[string]any{"bytes": stereoWAV(chans, 16000), "path": "x.wav"}
	path := filepath.Join(dir, "stereo.parquet")
	if err := tab.Write(path); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "s")
	if _, err := Ingest(Options{Parquet: []string{path}, Out: out}); err != nil {
		t.Fatal(err)
	}
	g, err := corpus.Gold(out, "", limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	if want := tbfixture.Gold()[0]; want.ID != convs[0].ID || !sameGold(g.Conversations[0], want) {
		t.Errorf("stereo: gold\n%+v\nwant (worked out by hand, see tbfixture.Gold)\n%+v", g.Conversations[0], want)
	}
}

// sameGold compares two conversations' gold field by field, an empty list
// equal to a missing one.
func sameGold(a, b floor.ConversationGold) bool {
	sameTask := func(x, y floor.TaskGold) bool {
		return slices.Equal(x.Positives, y.Positives) && slices.Equal(x.Negatives, y.Negatives) && slices.Equal(x.Excluded, y.Excluded)
	}
	return a.ID == b.ID && a.Duration == b.Duration && sameTask(a.EOT, b.EOT) && sameTask(a.INT, b.INT)
}

// badCase changes a one-conversation fixture table.
type badCase struct {
	name   string
	change func(*tbfixture.Table)
	want   string // the error must contain it (after the file name)
}

func setSegment(field string, v any) func(*tbfixture.Table) {
	return func(tab *tbfixture.Table) {
		seg := tab.Rows[0]["speaker_1_annotation_b"].([]any)[1].(map[string]any)
		seg[field] = v
	}
}

func TestIngestTurnBenchBadInput(t *testing.T) {
	const row = `row 0 (conversation_id "tb-001"): `
	const evil = `row 0 (conversation_id (not quoted)): `
	cases := []badCase{
		{"missing column", func(tab *tbfixture.Table) { delete(tab.Columns, "speaker_2_annotation_c") },
			`missing column "speaker_2_annotation_c"`},
		{"start as string", func(tab *tbfixture.Table) {
			tab.Columns["speaker_1_annotation_b"] = parquet.Optional(parquet.List(parquet.Group{
				"start_s": parquet.String(), "end_s": parquet.Leaf(parquet.DoubleType), "label": parquet.String()}))
			for _, s := range tab.Rows[0]["speaker_1_annotation_b"].([]any) {
				s.(map[string]any)["start_s"] = "0.5"
			}
		}, `column "speaker_1_annotation_b": field "start_s": type BYTE_ARRAY (STRING) (want double or float)`},
		{"corrupt audio", func(tab *tbfixture.Table) {
			tab.Rows[0]["speaker_2_audio"].(map[string]any)["bytes"] = []byte("RIFF\x00\x00garbage")
		}, row + `column "speaker_2_audio": audio bytes: `},
		{"not audio", func(tab *tbfixture.Table) {
			tab.Rows[0]["speaker_1_audio"].(map[string]any)["bytes"] = []byte("ID3 mp3")
		}, row + `column "speaker_1_audio": audio bytes: neither WAV nor FLAC (no RIFF or fLaC header)`},
		{"NaN time", setSegment("end_s", math.NaN()),
			row + `column "speaker_1_annotation_b"[1] field "end_s": value NaN is not finite`},
		{"infinite time", setSegment("start_s", math.Inf(1)),
			row + `column "speaker_1_annotation_b"[1] field "start_s": value +Inf is not finite`},
		{"negative time", setSegment("start_s", -2.0),
			row + `column "speaker_1_annotation_b"[1] field "start_s": value -2 is outside the audio [0, 6.000]`},
		{"past the audio", setSegment("end_s", 60.0),
			row + `column "speaker_1_annotation_b"[1] field "end_s": value 60 is outside the audio [0, 6.000]`},
		{"end before start", setSegment("end_s", 0.5),
			row + `column "speaker_1_annotation_b"[1] field "end_s": value 0.5 is before start_s 2.42`},
		{"traversal id", func(tab *tbfixture.Table) { tab.Rows[0]["conversation_id"] = "../evil" },
			evil + `column "conversation_id": value (not quoted) is not a valid conversation id`},
		{"missing audio channel", func(tab *tbfixture.Table) { delete(tab.Columns, "speaker_2_audio") },
			`missing column "speaker_2_audio" (the other speaker's audio column is present)`},
		{"null audio", func(tab *tbfixture.Table) { tab.Rows[0]["speaker_2_audio"] = nil },
			row + `column "speaker_2_audio": null`},
		{"partly blank labels", func(tab *tbfixture.Table) { tab.Rows[0]["speaker_1_annotation_c"] = nil },
			row + `column "speaker_1_annotation_c": null while "speaker_1_annotation_a" holds segments`},
		{"bad split", func(tab *tbfixture.Table) { tab.Rows[0]["split"] = "train" },
			row + `column "split": value "train" (want dev or test)`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			tab, err := tbfixture.Build(tbfixture.Default()[1:2])
			if err != nil {
				t.Fatal(err)
			}
			c.change(tab)
			path := filepath.Join(dir, "bad.parquet")
			if err := tab.Write(path); err != nil {
				t.Fatal(err)
			}
			expectIngestError(t, dir, path, path+": "+c.want)
		})
	}
	t.Run("not parquet", func(t *testing.T) {
		dir := t.TempDir()
		path := filepath.Join(dir, "x.parquet")
		os.WriteFile(path, []byte("conversation_id,audio\n1,2\n"), 0o644)
		expectIngestError(t, dir, path, path+": not a readable parquet file")
	})
}

// expectIngestError ingests path into dir/out and wants an error that
// contains want and nothing left behind in dir but the input.
func expectIngestError(t *testing.T, dir, path, want string) {
	t.Helper()
	_, err := Ingest(Options{Parquet: []string{path}, Out: filepath.Join(dir, "out"), Split: "dev"})
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("error %v\nwant it to contain %q", err, want)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("left behind: %v", names)
	}
}

func TestIngestTurnBenchRefusesAFullFolder(t *testing.T) {
	out, _ := ingestFixture(t)
	dev := filepath.Join(filepath.Dir(out), "dev.parquet")
	if _, err := Ingest(Options{Parquet: []string{dev}, Out: out}); err == nil || !strings.Contains(err.Error(), "--force") {
		t.Errorf("existing corpus without --force: %v", err)
	}
	m, err := Ingest(Options{Parquet: []string{dev}, Out: out, Force: true})
	if err != nil || len(m.Conversations) != 2 {
		t.Fatalf("--force: %v", err)
	}
	os.WriteFile(filepath.Join(out, "notes.txt"), []byte("mine"), 0o644)
	if _, err := Ingest(Options{Parquet: []string{dev}, Out: out, Force: true}); err == nil || !strings.Contains(err.Error(), "notes.txt") {
		t.Errorf("--force over someone's file: %v", err)
	}
}

// FuzzReadTurnBenchParquet feeds arbitrary bytes to the parquet reader:
// it must return an error or rows that satisfy the reader's promises.
func FuzzReadTurnBenchParquet(f *testing.F) {
	// A short seed keeps each execution fast: the fuzzer mutates structure.
	tab, err := tbfixture.Build([]tbfixture.Conversation{{ID: "f1", Split: "dev", Type: "casual", Duration: 0.5, Rate: 16000,
		Segments: []tbfixture.Segment{{Speaker: 1, Start: 0.1, End: 0.3, Label: "Normal Turn"}}}})
	if err != nil {
		f.Fatal(err)
	}
	seed, err := tab.Bytes()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add([]byte("PAR1PAR1"))
	f.Fuzz(func(t *testing.T, data []byte) {
		_ = ReadParquet(bytes.NewReader(data), int64(len(data)), func(r *Row) error {
			if r.Samples() == 0 {
				t.Fatal("a row without samples")
			}
			// What the reader accepted writes two channels of its length.
			folder := t.TempDir()
			if err := r.writeChannels(folder); err != nil {
				t.Fatalf("accepted audio does not write: %v", err)
			}
			for k := 1; k <= 2; k++ {
				if st, err := os.Stat(filepath.Join(folder, corpus.ChannelName(k))); err != nil || st.Size() != 44+2*int64(r.Samples()) {
					t.Fatalf("channel %d: %v, want %d samples", k, err, r.Samples())
				}
			}
			if r.Speakers != nil && len(r.Speakers) != 2 {
				t.Fatalf("%d speakers", len(r.Speakers))
			}
			for _, sp := range r.Speakers {
				for _, track := range sp {
					for _, s := range track {
						if !(s.Start >= 0 && s.End >= s.Start && s.End <= r.Duration()+corpus.AnnotationTimeTolerance) {
							t.Fatalf("segment %+v outside [0, %v]", s, r.Duration())
						}
					}
				}
			}
			return nil
		})
	})
}

// rmsBetween is the RMS of a 16 kHz channel over [from, to) seconds.
func rmsBetween(x []float32, from, to float64) float64 {
	return audio.RMS(x[int(from*corpus.SampleRate):int(to*corpus.SampleRate)])
}

func readChannel(path string) ([]float32, error) { return audio.ReadWAV16k(path) }

func decodeBytes(data []byte) ([][]float32, int, error) { return audio.DecodeChannels(data) }

// stereoWAV encodes two channels as one interleaved PCM16 WAV.
func stereoWAV(chans [][]float32, rate int) []byte {
	var buf bytes.Buffer
	n := len(chans[0])
	w := func(v any) { binary.Write(&buf, binary.LittleEndian, v) }
	buf.WriteString("RIFF")
	w(uint32(36 + 4*n))
	buf.WriteString("WAVEfmt ")
	w(uint32(16))
	w(uint16(1))
	w(uint16(2))
	w(uint32(rate))
	w(uint32(4 * rate))
	w(uint16(4))
	w(uint16(16))
	buf.WriteString("data")
	w(uint32(4 * n))
	for i := range n {
		w(audio.PCM16(chans[0][i]))
		w(audio.PCM16(chans[1][i]))
	}
	return buf.Bytes()
}

// compareTrees returns "" when two folders hold the same files with the
// same bytes, else what differs.
func compareTrees(t *testing.T, a, b string) string {
	t.Helper()
	var diffs []string
	n := 0
	err := filepath.WalkDir(a, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(a, path)
		x, _ := os.ReadFile(path)
		y, err := os.ReadFile(filepath.Join(b, rel))
		if err != nil || !bytes.Equal(x, y) {
			diffs = append(diffs, rel)
		}
		n++
		return nil
	})
	if err != nil {
		return err.Error()
	}
	if n < 8 {
		return fmt.Sprintf("only %d files compared", n)
	}
	if len(diffs) > 0 {
		return fmt.Sprintf("differ between two ingests of the same input: %v", diffs)
	}
	return ""
}

// Ingest refuses a row whose labels would give gold like [-5, 2] before it
// writes anything for it.
func TestIngestRejectsSegmentsFarOutsideTheConversation(t *testing.T) {
	dir := t.TempDir()
	row := &Row{ID: "c1", Split: "dev", samples: corpus.SampleRate,
		Speakers: []floor.SpeakerAnnotations{{{{Start: -5, End: 0.5, Label: "Normal Turn"}}}, {}}}
	_, err := WriteConversation(dir, row)
	want := `conversation "c1": speaker_1 annotator a segment 0: start -5 is outside [-3, 4] (3 s around [0, duration_s 1])`
	if err == nil || err.Error() != want {
		t.Fatalf("error %v\nwant  %s", err, want)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("wrote %v", entries)
	}
}

// Segments within the slack can still give a consensus turn that ends
// before the conversation starts; ingest refuses them, because no reader
// would accept the gold derived from them.
func TestIngestRejectsAnnotationsWhoseGoldCannotBeRead(t *testing.T) {
	dir := t.TempDir()
	turn := func(start, end float64) []floor.AnnotatedSegment {
		return []floor.AnnotatedSegment{{Start: start, End: end, Label: "Normal Turn"}}
	}
	three := func(start, end float64) floor.SpeakerAnnotations {
		return floor.SpeakerAnnotations{turn(start, end), turn(start, end), turn(start, end)}
	}
	row := &Row{ID: "c1", Split: "dev", samples: 20 * corpus.SampleRate,
		Speakers: []floor.SpeakerAnnotations{three(-2.5, -1), three(0.5, 5)}}
	_, err := WriteConversation(dir, row)
	if err == nil || !strings.HasPrefix(err.Error(), `conversation "c1": the gold derived from its annotations: eot_positive_events[0] speaker 1: time_s -1 is outside [0, 20.25]`) {
		t.Fatalf("error %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("wrote %v", entries)
	}
}
