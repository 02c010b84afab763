package turnbench

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/floorbench/floorbench/internal/corpus"
	"github.com/floorbench/floorbench/internal/dialogue"
	"github.com/floorbench/floorbench/internal/digest"
	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/redact"
)

// IngestVersion is the version of this ingester: bump it with any change
// that changes a byte of an ingested corpus, and only then. The manifest
// records it (corpus.Writer), so the corpus's hash, and with it every
// track and evaluation keyed by that hash, changes exactly when it does.
const IngestVersion = 1

// Channels are the source names of a TurnBench conversation's
// speakers, in speaker order.
var Channels = []string{"speaker_1", "speaker_2"}

// Options is what `corpus ingest turnbench` asks for.
type Options struct {
	Parquet []string // input shards
	Out     string
	// Split is the split of rows in files without a split column ("dev"
	// or "test"); where a file has one, it must agree.
	Split string
	Force bool // replace the corpus already in Out
	// Limits bound the shards read and the corpus made; zero:
	// limits.Default.
	Limits limits.Limits
}

// Ingest turns TurnBench parquet shards into a native corpus of
// kind turnbench. Everything is written into a temporary folder beside Out
// and renamed into place at the end, so a failure leaves Out as it was.
// The same input gives byte-identical output: conversations are sorted by
// id and the manifest records each input file by base name and sha256.
func Ingest(o Options) (*corpus.Manifest, error) {
	if len(o.Parquet) == 0 {
		return nil, errors.New("no parquet files given")
	}
	if o.Out == "" {
		return nil, errors.New("no output folder given")
	}
	if o.Split != "" && o.Split != string(dialogue.Dev) && o.Split != string(dialogue.Test) {
		return nil, fmt.Errorf("split %q (want dev or test)", o.Split)
	}
	o.Limits = o.Limits.OrDefault()
	st, err := corpus.Stage(o.Out, o.Force)
	if err != nil {
		return nil, err
	}
	defer st.Discard()
	m := &corpus.Manifest{SchemaVersion: corpus.SchemaVersion, Kind: corpus.KindTurnBench, CodeVersion: corpus.Writer("turnbench-ingest", IngestVersion), SampleRate: corpus.SampleRate}
	from := map[string]string{} // conversation id -> file
	for _, path := range o.Parquet {
		err := ingestShard(path, o.Limits, func(sum string) {
			m.Source = append(m.Source, corpus.SourceFile{Path: filepath.Base(path), SHA256: sum})
		}, func(row *Row) error {
			e, err := ingestRow(st.Dir, row, o.Split, from, path)
			if err != nil {
				return err
			}
			m.Conversations = append(m.Conversations, e)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	if len(m.Conversations) == 0 {
		return nil, fmt.Errorf("%s: no rows", strings.Join(o.Parquet, ", "))
	}
	slices.SortFunc(m.Source, func(a, b corpus.SourceFile) int { return strings.Compare(a.Path+a.SHA256, b.Path+b.SHA256) })
	slices.SortFunc(m.Conversations, func(a, b corpus.Conversation) int { return strings.Compare(a.ID, b.ID) })
	if err := m.Validate(o.Limits); err != nil {
		return nil, err
	}
	if err := st.Commit(m); err != nil {
		return nil, err
	}
	return m, nil
}

// ingestShard opens a parquet shard once (limits.Open's rule, at most
// lim's source_bytes), hashes it, passes the hash to source, and reads its
// rows with fn.
func ingestShard(path string, lim limits.Limits, source func(sha256 string), fn func(*Row) error) error {
	f, err := lim.OpenSource(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sum, err := digest.SHA256(f, path)
	if err != nil {
		return err
	}
	source(sum)
	return readParquetFile(f, path, fn)
}

// ingestRow checks a row's id and split and writes its folder into dir.
func ingestRow(dir string, row *Row, split string, from map[string]string, path string) (corpus.Conversation, error) {
	// Ids are kept as TurnBench spells them (submissions name them), so
	// an id that cannot name a folder is an error, not a silent mapping.
	if !dialogue.ValidID(row.ID) {
		return corpus.Conversation{}, fmt.Errorf("column %q: value %s is not a valid conversation id (want lower-case letters, digits, - and _; it names a folder)", colID, redact.Name(row.ID))
	}
	if prev, ok := from[row.ID]; ok {
		return corpus.Conversation{}, fmt.Errorf("conversation appears twice (also in %s)", prev)
	}
	from[row.ID] = path
	switch {
	case row.Split != "" && split != "" && row.Split != split:
		return corpus.Conversation{}, fmt.Errorf("column %q says %s, --split says %s", colSplit, redact.Name(row.Split), redact.Name(split))
	case row.Split == "" && split == "":
		return corpus.Conversation{}, fmt.Errorf("no %q column: give the split of its rows (--split dev|test)", colSplit)
	case row.Split == "":
		row.Split = split
	}
	return WriteConversation(dir, row)
}

// WriteConversation writes a row's folder in dir (both channels
// and, unless unlabelled, annotations.json) and returns its manifest entry.
func WriteConversation(dir string, row *Row) (corpus.Conversation, error) {
	e := corpus.Conversation{ID: row.ID, Split: row.Split, InteractionType: row.Type, Speakers: 2,
		Voices: []string{}, Duration: row.Duration(), Samples: row.Samples(),
		Channels: Channels, Unlabelled: row.Speakers == nil, Files: map[string]string{}}
	if err := floor.CheckTurnBenchGold(row.ID, e.Duration, row.Speakers); err != nil {
		return corpus.Conversation{}, fmt.Errorf("conversation %s: %w", redact.Name(row.ID), err)
	}
	folder := filepath.Join(dir, row.ID)
	if err := os.Mkdir(folder, 0o755); err != nil {
		return corpus.Conversation{}, err
	}
	if err := row.writeChannels(folder); err != nil {
		return corpus.Conversation{}, fmt.Errorf("conversation %s: %w", redact.Name(row.ID), err)
	}
	if !e.Unlabelled {
		data, err := corpus.EncodeTurnBenchAnnotations([]corpus.TurnBenchConversation{row.Annotations()})
		if err != nil {
			return corpus.Conversation{}, err
		}
		if err := os.WriteFile(filepath.Join(folder, corpus.AnnotationsName), data, 0o644); err != nil {
			return corpus.Conversation{}, err
		}
	}
	for _, name := range corpus.FilesOf(corpus.KindTurnBench, e) {
		sum, err := digest.FileSHA256(filepath.Join(folder, name))
		if err != nil {
			return corpus.Conversation{}, err
		}
		e.Files[name] = sum
	}
	return e, nil
}
