// Package tbfixture writes small TurnBench parquet files, with the
// dataset's column names and types, for the tests of the TurnBench ingest
// (internal/ingest/turnbench and cmd/floorbench). Audio is tones aligned with the
// annotated segments; every byte is computed, so fixtures are generated at
// test time rather than committed.
package tbfixture

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"

	"github.com/mewkiz/flac"
	"github.com/mewkiz/flac/frame"
	"github.com/mewkiz/flac/meta"
	"github.com/parquet-go/parquet-go"

	"github.com/floorbench/floorbench/internal/audio"
	"github.com/floorbench/floorbench/internal/floor"
)

// Segment is one annotated stretch of a speaker's channel; the three
// annotators mark it with small, different offsets.
type Segment struct {
	Speaker    int // 1 or 2
	Start, End float64
	Label      string // TurnBench fine label
	Text       string
}

// Conversation is one row of a fixture.
type Conversation struct {
	ID, Split, Type string
	Duration        float64 // seconds
	Rate            int     // audio sample rate
	FLAC            bool    // FLAC audio bytes (else PCM16 WAV)
	Segments        []Segment
	Unlabelled      bool // the six annotation columns are null
}

// annotatorOffset is how far annotators a, b and c shift every boundary
// (well inside TurnBench's 0.2 s agreement tolerance).
var annotatorOffset = [floor.Annotators]float64{0, 0.02, -0.03}

// Default is the fixture: two labelled dev conversations (WAV at 16 kHz,
// FLAC at 44.1 kHz) and one unlabelled test conversation (WAV at 24 kHz).
func Default() []Conversation {
	return []Conversation{
		{ID: "tb-002", Split: "dev", Type: "debate", Duration: 5, Rate: 44100, FLAC: true, Segments: []Segment{
			{1, 0.2, 1.2, "Normal Turn", "I think so"},
			{1, 1.6, 2.5, "Normal Turn", "but then again"},
			{2, 2.9, 4.2, "Normal Turn", "no way"},
		}},
		{ID: "tb-001", Split: "dev", Type: "casual", Duration: 6, Rate: 16000, Segments: []Segment{
			{1, 0.3, 1.6, "Normal Turn", "hello there"},
			{2, 1.9, 3.0, "Normal Turn", "hi how are you"},
			{1, 2.4, 2.6, "Continuer Backchannel", "mhm"},
			{1, 3.3, 4.4, "Normal Turn", "fine thanks"},
			{2, 4.0, 5.2, "Floor-taking Competitive Interruption", "wait a second"},
		}},
		{ID: "tb-101", Split: "test", Type: "casual", Duration: 4, Rate: 24000, Unlabelled: true, Segments: []Segment{
			{1, 0.5, 1.5, "Normal Turn", ""},
			{2, 2.0, 3.5, "Normal Turn", ""},
		}},
	}
}

// Tracks returns the annotator tracks a conversation's row holds, as
// floor.DeriveTurnBench takes them (nil for an unlabelled one).
func Tracks(c Conversation) []floor.SpeakerAnnotations {
	if c.Unlabelled {
		return nil
	}
	out := make([]floor.SpeakerAnnotations, 2)
	for _, s := range c.Segments {
		for a, off := range annotatorOffset {
			out[s.Speaker-1][a] = append(out[s.Speaker-1][a], floor.AnnotatedSegment{
				Start: round3(max(0, s.Start+off)), End: round3(min(c.Duration, s.End+off)), Label: s.Label, Text: s.Text})
		}
	}
	return out
}

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }

// Table is a parquet file's columns and rows; tests change them (drop a
// column, retype a field, corrupt a value) before writing.
type Table struct {
	Columns parquet.Group
	Rows    []map[string]any
}

// SegmentColumn is the type of an annotation column:
// list<struct{start_s double, end_s double, label string, text string}>.
func SegmentColumn() parquet.Node {
	return parquet.Optional(parquet.List(parquet.Group{
		"start_s": parquet.Leaf(parquet.DoubleType),
		"end_s":   parquet.Leaf(parquet.DoubleType),
		"label":   parquet.String(),
		"text":    parquet.Optional(parquet.String()),
	}))
}

// AudioColumn is the type of Hugging Face's Audio feature:
// struct{bytes binary, path string}.
func AudioColumn() parquet.Node {
	return parquet.Optional(parquet.Group{
		"bytes": parquet.Optional(parquet.Leaf(parquet.ByteArrayType)),
		"path":  parquet.Optional(parquet.String()),
	})
}

// Build makes the table of the conversations: conversation_id, metadata,
// speaker_{1,2}_audio, the six annotation columns and, when every
// conversation has one, split.
func Build(convs []Conversation) (*Table, error) {
	t := &Table{Columns: parquet.Group{
		"conversation_id": parquet.String(),
		"metadata": parquet.Optional(parquet.Group{
			"conversation_type":      parquet.Optional(parquet.String()),
			"speaker_1_actor_gender": parquet.Optional(parquet.String()),
			"speaker_2_actor_gender": parquet.Optional(parquet.String()),
		}),
		"speaker_1_audio": AudioColumn(),
		"speaker_2_audio": AudioColumn(),
	}}
	withSplit := true
	for k := 1; k <= 2; k++ {
		for _, a := range []string{"a", "b", "c"} {
			t.Columns[fmt.Sprintf("speaker_%d_annotation_%s", k, a)] = SegmentColumn()
		}
	}
	for _, c := range convs {
		row, err := buildRow(c)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.ID, err)
		}
		t.Rows = append(t.Rows, row)
		withSplit = withSplit && c.Split != ""
	}
	if withSplit {
		t.Columns["split"] = parquet.String()
		for i, c := range convs {
			t.Rows[i]["split"] = c.Split
		}
	}
	return t, nil
}

func buildRow(c Conversation) (map[string]any, error) {
	row := map[string]any{
		"conversation_id": c.ID,
		"metadata": map[string]any{"conversation_type": c.Type,
			"speaker_1_actor_gender": "female", "speaker_2_actor_gender": "male"},
	}
	for k := 1; k <= 2; k++ {
		data, err := encode(channel(c, k), c.Rate, c.FLAC)
		if err != nil {
			return nil, err
		}
		ext := map[bool]string{true: "flac", false: "wav"}[c.FLAC]
		row[fmt.Sprintf("speaker_%d_audio", k)] = map[string]any{
			"bytes": data, "path": fmt.Sprintf("%s_speaker_%d.%s", c.ID, k, ext)}
	}
	tracks := Tracks(c)
	for k := 1; k <= 2; k++ {
		for a, key := range []string{"a", "b", "c"} {
			var v any
			if tracks != nil {
				list := []any{}
				for _, s := range tracks[k-1][a] {
					list = append(list, map[string]any{"start_s": s.Start, "end_s": s.End, "label": s.Label, "text": s.Text})
				}
				v = list
			}
			row[fmt.Sprintf("speaker_%d_annotation_%s", k, key)] = v
		}
	}
	return row, nil
}

// channel renders speaker k's tones: 0.3 amplitude, 10 ms fades, a pitch
// per speaker.
func channel(c Conversation, k int) []float32 {
	x := make([]float32, int(c.Duration*float64(c.Rate)))
	for _, s := range c.Segments {
		if s.Speaker != k {
			continue
		}
		from, to := int(s.Start*float64(c.Rate)), min(len(x), int(s.End*float64(c.Rate)))
		fade := float64(c.Rate) / 100
		for i := from; i < to; i++ {
			g := min(1, float64(i-from)/fade, float64(to-i)/fade)
			x[i] = float32(0.3 * g * math.Sin(2*math.Pi*float64(150*k)*float64(i)/float64(c.Rate)))
		}
	}
	return x
}

// encode writes samples as WAV (PCM16) or FLAC (16 bit, verbatim frames).
func encode(x []float32, rate int, asFLAC bool) ([]byte, error) {
	var buf bytes.Buffer
	if !asFLAC {
		err := audio.EncodeWAV(&buf, x, rate)
		return buf.Bytes(), err
	}
	const block = 4096
	enc, err := flac.NewEncoder(&buf, &meta.StreamInfo{BlockSizeMin: block, BlockSizeMax: block,
		SampleRate: uint32(rate), NChannels: 1, BitsPerSample: 16, NSamples: uint64(len(x))})
	if err != nil {
		return nil, err
	}
	for i := 0; i < len(x); i += block {
		n := min(block, len(x)-i)
		samples := make([]int32, n)
		for j := range samples {
			samples[j] = int32(audio.PCM16(x[i+j]))
		}
		f := &frame.Frame{
			Header: frame.Header{HasFixedBlockSize: true, BlockSize: uint16(n), SampleRate: uint32(rate),
				Channels: frame.ChannelsMono, BitsPerSample: 16, Num: uint64(i / block)},
			Subframes: []*frame.Subframe{{SubHeader: frame.SubHeader{Pred: frame.PredVerbatim}, Samples: samples, NSamples: n}},
		}
		if err := enc.WriteFrame(f); err != nil {
			return nil, err
		}
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Bytes encodes the table as a parquet file (one row group per row, so
// readers are exercised across row groups).
func (t *Table) Bytes() ([]byte, error) {
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[map[string]any](&buf, parquet.NewSchema("turnbench", t.Columns))
	for _, row := range t.Rows {
		if _, err := w.Write([]map[string]any{row}); err != nil {
			return nil, err
		}
		if err := w.Flush(); err != nil {
			return nil, err
		}
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Write writes the table to path.
func (t *Table) Write(path string) error {
	data, err := t.Bytes()
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

// WriteFiles writes the default fixture as two shards in dir, dev.parquet
// (labelled) and test.parquet (unlabelled), and returns their paths.
func WriteFiles(dir string) (dev, test string, err error) {
	var devConvs, testConvs []Conversation
	for _, c := range Default() {
		if c.Split == "dev" {
			devConvs = append(devConvs, c)
		} else {
			testConvs = append(testConvs, c)
		}
	}
	dev, test = dir+"/dev.parquet", dir+"/test.parquet"
	for _, f := range []struct {
		path  string
		convs []Conversation
	}{{dev, devConvs}, {test, testConvs}} {
		t, err := Build(f.convs)
		if err == nil {
			err = t.Write(f.path)
		}
		if err != nil {
			return "", "", err
		}
	}
	return dev, test, nil
}

// Dialogue makes a longer labelled conversation, seeded: the two speakers
// alternate turns of 1.5 to 4 s after gaps of 0.2 to 0.9 s, a quarter of
// the turns continue after a hold of 0.5 to 0.9 s (two Normal Turn
// segments of the same speaker), the listener backchannels in a third of
// the turns, and a fifth of the turns end by a floor-taking interruption
// that overlaps them by 0.3 to 0.6 s.
func Dialogue(id, split, kind string, seed uint64, seconds float64) Conversation {
	rng := rand.New(rand.NewPCG(seed, 0x7b))
	c := Conversation{ID: id, Split: split, Type: kind, Duration: seconds, Rate: 16000}
	between := func(lo, hi float64) float64 { return round3(lo + (hi-lo)*rng.Float64()) }
	speaker, t := 1, 0.3
	for {
		end := t + between(1.5, 4)
		if end > seconds-5 {
			return c
		}
		c.Segments = append(c.Segments, Segment{speaker, t, end, "Normal Turn", "words words"})
		other := 3 - speaker
		if rng.IntN(3) == 0 {
			bc := round3(t + (end-t)/2)
			c.Segments = append(c.Segments, Segment{other, bc, bc + 0.3, "Continuer Backchannel", "mhm"})
		}
		if rng.IntN(4) == 0 {
			t = end + between(0.5, 0.9)
			continue // a hold: the same speaker goes on
		}
		if rng.IntN(5) == 0 {
			t = end - between(0.3, 0.6)
			claim := t + 0.8
			c.Segments = append(c.Segments, Segment{other, t, claim, "Floor-taking Competitive Interruption", "wait"})
			t = claim + 0.3
		} else {
			t = end + between(0.2, 0.9)
		}
		speaker = other
	}
}

// Gold is the gold of Default's labelled conversations, worked out by hand
// from their segments (docs/protocol.md#turnbench), not by the derivation
// under test. Every boundary is annotated at offsets -0.03, 0 and +0.02
// (c, a, b), so the three annotators agree (spread 0.05 <= 0.2) and each
// consensus boundary is the median, the fixture's own time.
//
// tb-001 (6 s): the turn view (Turns and floor-taking interruptions) has
// speaker 1 at 0.3-1.6 and 3.3-4.4, speaker 2 at 1.9-3.0 and 4.0-5.2.
//   - 1.6: speaker 2 starts (1.9) before speaker 1 resumes (3.3): EOT.
//   - 4.4: speaker 1 never resumes (and speaker 2 is mid-turn): EOT.
//   - 3.0: speaker 1 starts (3.3) before speaker 2 resumes (4.0): EOT.
//   - 5.2: speaker 2 never resumes: EOT.
//
// No end is followed by the same speaker first, so no hold pause. The
// label view has one floor-taking interruption, speaker 2 at 4.0 (an INT
// positive), and one backchannel, speaker 1 at 2.4-2.6 (an INT negative).
// Nothing lacks a majority, so nothing is excluded.
//
// tb-002 (5 s): speaker 1 at 0.2-1.2 and 1.6-2.5, speaker 2 at 2.9-4.2.
//   - 1.2: speaker 1 resumes (1.6) before speaker 2 starts (2.9) and
//     nobody speaks in between: a hold pause 1.2-1.6, an EOT negative.
//   - 2.5: speaker 1 never resumes: EOT. 4.2: speaker 2 never resumes: EOT.
//
// No interruption, backchannel or noise: no INT events.
//
// Positives are listed by speaker, then time; spans in the same order.
func Gold() []floor.ConversationGold {
	return []floor.ConversationGold{
		{ID: "tb-001", Duration: 6,
			EOT: floor.TaskGold{Positives: []floor.Anchor{{Speaker: 1, Time: 1.6}, {Speaker: 1, Time: 4.4}, {Speaker: 2, Time: 3.0}, {Speaker: 2, Time: 5.2}}},
			INT: floor.TaskGold{Positives: []floor.Anchor{{Speaker: 2, Time: 4.0}}, Negatives: []floor.Span{{Speaker: 1, Start: 2.4, End: 2.6}}}},
		{ID: "tb-002", Duration: 5,
			EOT: floor.TaskGold{Positives: []floor.Anchor{{Speaker: 1, Time: 2.5}, {Speaker: 2, Time: 4.2}}, Negatives: []floor.Span{{Speaker: 1, Start: 1.2, End: 1.6}}}},
	}
}
