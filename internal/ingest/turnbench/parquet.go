package turnbench

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/floorbench/floorbench/internal/audio"
	"github.com/floorbench/floorbench/internal/corpus"
	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/redact"
)

// Column names of the TurnBench parquet schema (see doc.go).
const (
	colID       = "conversation_id"
	colMetadata = "metadata"
	colSplit    = "split"
	colStereo   = "audio"
	metaType    = "conversation_type"
	// UnknownType is the interaction type of a conversation whose row has
	// no metadata conversation_type.
	UnknownType = "unknown"
)

// maxChannelSkew is the largest difference in length between the two
// speakers' channels that is padded with silence (codecs pad the last
// block); anything larger is an error.
const maxChannelSkew = 1.0 // seconds

// Row is one conversation of a TurnBench parquet file: its
// audio, checked but kept encoded (WriteConversation decodes and
// resamples it block by block), and the raw annotator tracks (nil for an
// unlabelled row).
type Row struct {
	ID       string
	Split    string // "" when the file has no split column
	Type     string // metadata conversation_type, or UnknownType
	Audio    []AudioCell
	Speakers []floor.SpeakerAnnotations
	samples  int
}

// AudioCell is one encoded audio value of a row: the stereo column (both
// speakers) or one speaker's column.
type AudioCell struct {
	Data []byte
	// Length is each of its channels' length at 16 kHz.
	Length int
}

// Samples is the length of each channel at 16 kHz, the shorter one padded
// with silence.
func (r *Row) Samples() int { return r.samples }

// Duration is the channels' length in seconds.
func (r *Row) Duration() float64 { return float64(r.Samples()) / corpus.SampleRate }

// Annotations returns the row's labels in the raw annotations format (one
// conversation), ready for annotations.json.
func (r *Row) Annotations() corpus.TurnBenchConversation {
	return corpus.TurnBenchConversation{ID: r.ID, Duration: r.Duration(), Speakers: r.Speakers}
}

// ReadParquetFile reads a TurnBench parquet file row by row (one
// conversation's audio in memory at a time) and calls fn with each row in
// file order. Every error names the file. The file holds at most lim's
// source_bytes.
func ReadParquetFile(path string, lim limits.Limits, fn func(*Row) error) error {
	f, err := lim.OpenSource(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return readParquetFile(f, path, fn)
}

// readParquetFile is ReadParquetFile on a file opened by the caller.
func readParquetFile(f *os.File, path string, fn func(*Row) error) error {
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if err := ReadParquet(f, st.Size(), fn); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// ReadParquet is ReadParquetFile on an open file of the
// given size. The parquet decoder is given outside input, so a panic
// inside it is returned as an error.
func ReadParquet(r io.ReaderAt, size int64, fn func(*Row) error) (err error) {
	var inFn bool
	defer func() {
		if p := recover(); p != nil {
			if inFn {
				panic(p)
			}
			err = fmt.Errorf("corrupt parquet data (decoder: %v)", p)
		}
	}()
	f, err := parquet.OpenFile(r, size)
	if err != nil {
		return fmt.Errorf("not a readable parquet file: %w", err)
	}
	l, err := layoutOf(f.Schema())
	if err != nil {
		return err
	}
	index := 0
	for _, rg := range f.RowGroups() {
		if err := readRowGroup(rg, l, &index, func(row *Row) error {
			inFn = true
			err := fn(row)
			inFn = false
			return err
		}); err != nil {
			return err
		}
	}
	return nil
}

// readRowGroup decodes a row group's rows one at a time. A corrupt group
// whose reader stops making progress before its declared row count is an
// error, not a loop.
func readRowGroup(rg parquet.RowGroup, l *layout, index *int, fn func(*Row) error) error {
	rows := parquet.NewRowGroupReader(rg, l.schema)
	defer rows.Close()
	buf := make([]parquet.Row, 1)
	for read := int64(0); read < rg.NumRows(); {
		n, err := rows.ReadRows(buf)
		if n == 1 {
			row, err := l.decode(buf[0])
			if err != nil {
				return fmt.Errorf("row %d%w", *index, err)
			}
			if err := fn(row); err != nil {
				return fmt.Errorf("row %d (conversation_id %s): %w", *index, redact.Name(row.ID), err)
			}
			*index++
			read++
			continue
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("row %d: %w", *index, err)
		}
		return fmt.Errorf("row %d: the row group declares %d rows but holds %d", *index, rg.NumRows(), read)
	}
	return nil
}

// layout is what a file's schema holds of the accepted schema (doc.go):
// the projection read and how to interpret it.
type layout struct {
	schema      *parquet.Schema
	audio       []string // speaker_1_audio, speaker_2_audio; or audio (stereo)
	labelled    bool     // the six annotation columns are present
	hasMetadata bool
	hasSplit    bool
}

// audioColumn names speaker k's audio column (k from 1).
func audioColumn(k int) string { return fmt.Sprintf("speaker_%d_audio", k) }

// annotationColumn names speaker k's column of annotator a.
func annotationColumn(k int, a string) string {
	return fmt.Sprintf("speaker_%d_annotation_%s", k, a)
}

func layoutOf(s *parquet.Schema) (*layout, error) {
	fields := map[string]parquet.Node{}
	for _, f := range s.Fields() {
		fields[f.Name()] = f
	}
	l := &layout{}
	proj := parquet.Group{}
	id, ok := fields[colID]
	if !ok {
		return nil, fmt.Errorf("missing column %q", colID)
	}
	if err := wantString(id); err != nil {
		return nil, fmt.Errorf("column %q: %w", colID, err)
	}
	proj[colID] = id
	if err := l.audioLayout(fields, proj); err != nil {
		return nil, err
	}
	if err := l.annotationLayout(fields, proj); err != nil {
		return nil, err
	}
	if m, ok := fields[colMetadata]; ok {
		if err := checkMetadata(m); err != nil {
			return nil, fmt.Errorf("column %q: %w", colMetadata, err)
		}
		l.hasMetadata, proj[colMetadata] = true, m
	}
	if sp, ok := fields[colSplit]; ok {
		if err := wantString(sp); err != nil {
			return nil, fmt.Errorf("column %q: %w", colSplit, err)
		}
		l.hasSplit, proj[colSplit] = true, sp
	}
	l.schema = parquet.NewSchema("turnbench", proj)
	return l, nil
}

// audioLayout accepts one audio column per speaker or one stereo column.
func (l *layout) audioLayout(fields map[string]parquet.Node, proj parquet.Group) error {
	_, have1 := fields[audioColumn(1)]
	_, have2 := fields[audioColumn(2)]
	switch {
	case have1 || have2:
		l.audio = []string{audioColumn(1), audioColumn(2)}
	case fields[colStereo] != nil:
		l.audio = []string{colStereo}
	default:
		return fmt.Errorf("missing audio: want columns %q and %q (or one stereo column %q)", audioColumn(1), audioColumn(2), colStereo)
	}
	for _, name := range l.audio {
		n, ok := fields[name]
		if !ok {
			return fmt.Errorf("missing column %q (the other speaker's audio column is present)", name)
		}
		if err := checkAudio(n); err != nil {
			return fmt.Errorf("column %q: %w", name, err)
		}
		proj[name] = n
	}
	return nil
}

// annotationLayout accepts all six annotation columns or none (audio
// only, as TurnBench's public test split may be shipped).
func (l *layout) annotationLayout(fields map[string]parquet.Node, proj parquet.Group) error {
	var present, missing []string
	for k := 1; k <= 2; k++ {
		for _, a := range corpus.AnnotatorKeys {
			name := annotationColumn(k, a)
			n, ok := fields[name]
			if !ok {
				missing = append(missing, name)
				continue
			}
			if err := checkAnnotations(n); err != nil {
				return fmt.Errorf("column %q: %w", name, err)
			}
			present = append(present, name)
			proj[name] = n
		}
	}
	if len(present) > 0 && len(missing) > 0 {
		return fmt.Errorf("missing column %q (other annotation columns are present; want all six or none)", missing[0])
	}
	l.labelled = len(present) > 0
	return nil
}

// wantString accepts a byte-array leaf (string or binary).
func wantString(n parquet.Node) error {
	if !n.Leaf() || n.Repeated() || n.Type().Kind() != parquet.ByteArray {
		return fmt.Errorf("type %s (want string)", typeName(n))
	}
	return nil
}

// wantNumber accepts a double or float leaf.
func wantNumber(n parquet.Node) error {
	if !n.Leaf() || n.Repeated() || (n.Type().Kind() != parquet.Double && n.Type().Kind() != parquet.Float) {
		return fmt.Errorf("type %s (want double or float)", typeName(n))
	}
	return nil
}

func typeName(n parquet.Node) string {
	switch {
	case n.Repeated():
		return "repeated " + typeName(parquet.Required(n))
	case !n.Leaf():
		if isList(n) {
			return "list"
		}
		return "struct"
	case n.Type().LogicalType() != nil:
		return fmt.Sprintf("%s (%s)", n.Type().Kind(), n.Type().LogicalType())
	}
	return n.Type().Kind().String()
}

func isList(n parquet.Node) bool {
	if n.Leaf() || n.Type().LogicalType() == nil {
		return false
	}
	_, ok := n.Type().LogicalType().Value.(*format.ListType)
	return ok
}

// field returns a group's field by name (nil if absent).
func field(n parquet.Node, name string) parquet.Node {
	for _, f := range n.Fields() {
		if f.Name() == name {
			return f
		}
	}
	return nil
}

// checkAudio accepts binary audio bytes or Hugging Face's Audio struct
// {bytes: binary, path: string}.
func checkAudio(n parquet.Node) error {
	if n.Leaf() {
		return wantString(n)
	}
	b := field(n, "bytes")
	if b == nil {
		return fmt.Errorf("struct without field \"bytes\" (want binary, or struct{bytes binary, path string})")
	}
	if err := wantString(b); err != nil {
		return fmt.Errorf("field \"bytes\": %w", err)
	}
	return nil
}

// checkMetadata accepts a struct whose conversation_type (if present) is a
// string, or a string holding a JSON object.
func checkMetadata(n parquet.Node) error {
	if n.Leaf() {
		return wantString(n)
	}
	if t := field(n, metaType); t != nil {
		if err := wantString(t); err != nil {
			return fmt.Errorf("field %q: %w", metaType, err)
		}
	}
	return nil
}

// segmentFields are the accepted names of a segment's times: TurnBench's
// start_s/end_s, or start/end.
var segmentFields = [][2]string{{"start_s", "end_s"}, {"start", "end"}}

// checkAnnotations accepts list<struct{start_s, end_s double|float,
// label string, text string (optional)}>.
func checkAnnotations(n parquet.Node) error {
	if !isList(n) || len(n.Fields()) != 1 || len(n.Fields()[0].Fields()) != 1 {
		return fmt.Errorf("type %s (want list<struct{start_s double, end_s double, label string, text string}>)", typeName(n))
	}
	elem := n.Fields()[0].Fields()[0]
	if elem.Leaf() {
		return fmt.Errorf("list of %s (want list<struct{start_s double, end_s double, label string, text string}>)", typeName(elem))
	}
	start, end := segmentNames(elem)
	if start == "" {
		return errors.New("segment struct has no start_s/end_s (or start/end) fields")
	}
	for _, name := range []string{start, end} {
		if err := wantNumber(field(elem, name)); err != nil {
			return fmt.Errorf("field %q: %w", name, err)
		}
	}
	for _, name := range []string{"label", "text"} {
		f := field(elem, name)
		if f == nil && name == "label" {
			return errors.New("segment struct has no field \"label\"")
		}
		if f != nil {
			if err := wantString(f); err != nil {
				return fmt.Errorf("field %q: %w", name, err)
			}
		}
	}
	return nil
}

// segmentNames returns the names of a segment struct's time fields.
func segmentNames(elem parquet.Node) (start, end string) {
	for _, p := range segmentFields {
		if field(elem, p[0]) != nil && field(elem, p[1]) != nil {
			return p[0], p[1]
		}
	}
	return "", ""
}

// decode interprets one row of the projection. Errors start with the
// conversation id (once it is known) and name the column and field.
func (l *layout) decode(pr parquet.Row) (*Row, error) {
	m := map[string]any{}
	if err := l.schema.Reconstruct(&m, pr); err != nil {
		return nil, fmt.Errorf(": %w", err)
	}
	id, ok := str(m[colID])
	if !ok || id == "" {
		return nil, fmt.Errorf(": column %q: null or empty", colID)
	}
	row := &Row{ID: id, Type: UnknownType}
	wrap := func(err error) error { return fmt.Errorf(" (conversation_id %s): %w", redact.Name(id), err) }
	if err := l.decodeMeta(m, row); err != nil {
		return nil, wrap(err)
	}
	if err := l.decodeAudio(m, row); err != nil {
		return nil, wrap(err)
	}
	if err := l.decodeAnnotations(m, row); err != nil {
		return nil, wrap(err)
	}
	return row, nil
}

func (l *layout) decodeMeta(m map[string]any, row *Row) error {
	if l.hasSplit {
		s, ok := str(m[colSplit])
		if !ok {
			return fmt.Errorf("column %q: null", colSplit)
		}
		if s != "dev" && s != "test" {
			return fmt.Errorf("column %q: value %s (want dev or test)", colSplit, redact.Name(s))
		}
		row.Split = s
	}
	if !l.hasMetadata || m[colMetadata] == nil {
		return nil
	}
	meta := m[colMetadata]
	if s, ok := str(meta); ok {
		var obj map[string]any
		if err := json.Unmarshal([]byte(s), &obj); err != nil {
			return fmt.Errorf("column %q: not a JSON object: %w", colMetadata, redact.JSON(err))
		}
		meta = obj
	}
	if obj, ok := meta.(map[string]any); ok && obj[metaType] != nil {
		t, ok := str(obj[metaType])
		if !ok {
			return fmt.Errorf("column %q field %q: value %v is not a string", colMetadata, metaType, obj[metaType])
		}
		if t != "" {
			row.Type = t
		}
	}
	return nil
}

// str reads a string or binary value.
func str(v any) (string, bool) {
	switch s := v.(type) {
	case string:
		return s, true
	case []byte:
		return string(s), true
	}
	return "", false
}

func (l *layout) decodeAudio(m map[string]any, row *Row) error {
	var lengths []int // per speaker
	for _, name := range l.audio {
		cell, channels, err := decodeAudioValue(m[name], len(l.audio) == 1)
		if err != nil {
			return fmt.Errorf("column %q: %w", name, err)
		}
		row.Audio = append(row.Audio, cell)
		for range channels {
			lengths = append(lengths, cell.Length)
		}
	}
	a, b := lengths[0], lengths[1]
	if skew := math.Abs(float64(a-b)) / corpus.SampleRate; skew > maxChannelSkew {
		return fmt.Errorf("speaker channels differ in length by %.3f s (%d and %d samples at 16 kHz; at most %g s is padded)", skew, a, b, maxChannelSkew)
	}
	row.samples = max(a, b)
	if row.samples == 0 {
		return errors.New("audio holds no samples")
	}
	return nil
}

// decodeAudioValue checks one audio cell (two channels for the stereo
// column, one for a speaker's) by decoding it block by block, and returns
// it with the length of its channels at 16 kHz.
func decodeAudioValue(v any, stereo bool) (AudioCell, int, error) {
	if st, ok := v.(map[string]any); ok {
		v = st["bytes"]
		if v == nil {
			return AudioCell{}, 0, errors.New("field \"bytes\": null (the audio must be embedded, not a path)")
		}
	}
	data, ok := v.([]byte)
	if !ok {
		s, isStr := v.(string)
		if !isStr {
			return AudioCell{}, 0, errors.New("null")
		}
		data = []byte(s)
	}
	rate, channels, frames, err := audio.CountFrames(data)
	if err != nil {
		return AudioCell{}, 0, fmt.Errorf("audio bytes: %w", err)
	}
	want := 1
	if stereo {
		want = 2
	}
	if channels != want {
		return AudioCell{}, 0, fmt.Errorf("audio has %d channels (want %d)", channels, want)
	}
	return AudioCell{Data: data, Length: audio.ResampledLength(frames, rate, corpus.SampleRate)}, channels, nil
}

// writeChannels writes the row's two 16 kHz channels into folder, each
// resampled and clipped to [-1, 1] (interpolation can overshoot a
// full-scale recording a little), the shorter padded with silence.
func (r *Row) writeChannels(folder string) error {
	k := 1
	for _, cell := range r.Audio {
		dsts := []string{filepath.Join(folder, corpus.ChannelName(k))}
		if len(r.Audio) == 1 {
			dsts = append(dsts, filepath.Join(folder, corpus.ChannelName(k+1)))
		}
		if err := audio.ResampleToWAV(cell.Data, dsts, corpus.SampleRate, cell.Length, r.samples); err != nil {
			return fmt.Errorf("audio: %w", err)
		}
		k += len(dsts)
	}
	return nil
}

// decodeAnnotations reads the six tracks. A row is unlabelled when every
// annotation column is null or empty (TurnBench blanks them in its public
// test release); a row with some tracks blank and others not is an error.
func (l *layout) decodeAnnotations(m map[string]any, row *Row) error {
	if !l.labelled {
		return nil
	}
	speakers := make([]floor.SpeakerAnnotations, 2)
	var blank, filled []string
	for k := 1; k <= 2; k++ {
		for a, key := range corpus.AnnotatorKeys {
			name := annotationColumn(k, key)
			segs, err := decodeTrack(m[name], row.Duration())
			if err != nil {
				return fmt.Errorf("column %q%w", name, err)
			}
			if len(segs) == 0 {
				blank = append(blank, name)
			} else {
				filled = append(filled, name)
			}
			speakers[k-1][a] = segs
		}
	}
	if len(filled) == 0 {
		return nil
	}
	if len(blank) > 0 && m[blank[0]] == nil {
		return fmt.Errorf("column %q: null while %q holds segments (a row is labelled in all six tracks or in none)", blank[0], filled[0])
	}
	row.Speakers = speakers
	return nil
}

// decodeTrack reads one annotator's segments (nil for a null track). Its
// errors follow a column name directly: `column "x"[3] field "start_s": ...`.
func decodeTrack(v any, duration float64) ([]floor.AnnotatedSegment, error) {
	if v == nil {
		return nil, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf(": value of type %T (want a list of segments)", v)
	}
	out := make([]floor.AnnotatedSegment, 0, len(list))
	for i, e := range list {
		s, err := decodeSegment(e, duration)
		if err != nil {
			return nil, fmt.Errorf("[%d] %w", i, err)
		}
		out = append(out, s)
	}
	return out, nil
}

func decodeSegment(e any, duration float64) (floor.AnnotatedSegment, error) {
	var s floor.AnnotatedSegment
	obj, ok := e.(map[string]any)
	if !ok {
		return s, fmt.Errorf("segment of type %T (want a struct)", e)
	}
	names := segmentFields[0]
	if _, ok := obj[names[0]]; !ok {
		names = segmentFields[1]
	}
	times := [2]float64{}
	for i, name := range names {
		t, err := number(obj[name])
		if err == nil && (t < 0 || t > duration+corpus.AnnotationTimeTolerance) {
			err = fmt.Errorf("value %v is outside the audio [0, %.3f]", t, duration)
		}
		if err != nil {
			return s, fmt.Errorf("field %q: %w", name, err)
		}
		times[i] = t
	}
	if times[1] < times[0] {
		return s, fmt.Errorf("field %q: value %v is before %s %v", names[1], times[1], names[0], times[0])
	}
	s.Start, s.End = times[0], times[1]
	label, ok := str(obj["label"])
	if !ok {
		return s, errors.New("field \"label\": null")
	}
	s.Label = label
	s.Text, _ = str(obj["text"])
	return s, nil
}

// number reads a double or float value; a float is widened exactly.
func number(v any) (float64, error) {
	var t float64
	switch x := v.(type) {
	case float64:
		t = x
	case float32:
		t = float64(x)
	case nil:
		return 0, errors.New("null")
	default:
		return 0, fmt.Errorf("value %v of type %T (want a number)", v, v)
	}
	if math.IsNaN(t) || math.IsInf(t, 0) {
		return 0, fmt.Errorf("value %v is not finite", t)
	}
	return t, nil
}
