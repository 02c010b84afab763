package corpus

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/floorbench/floorbench/internal/atomicfile"
	"github.com/floorbench/floorbench/internal/dialogue"
)

// channelFile matches the name of a speaker channel.
var channelFile = regexp.MustCompile(`^speaker_[1-9][0-9]?\.wav$`)

// PartialPrefix starts the name of a folder being written: a corpus
// beside its destination or a conversation inside it.
// Such folders are never listed in a manifest, so Check rejects them.
const PartialPrefix = ".partial-"

// Staging is a corpus being written into a temporary folder beside its
// destination: an ingest writes every conversation into Dir, and Commit
// writes the manifest and renames the folder into place, so a failure
// leaves the destination as it was.
type Staging struct {
	Dir   string // the temporary folder conversations are written into
	out   string
	force bool
}

// Stage checks, without changing it, that out may receive a corpus (absent,
// empty, or with force a corpus) and creates the staging folder beside it.
func Stage(out string, force bool) (*Staging, error) {
	if _, err := checkOut(out, force); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	parent := filepath.Dir(filepath.Clean(out))
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(parent, PartialPrefix+filepath.Base(filepath.Clean(out))+"-")
	if err != nil {
		return nil, err
	}
	return &Staging{Dir: tmp, out: out, force: force}, nil
}

// Commit writes m as the manifest and moves the corpus into place,
// replacing the corpus there (only with force, and only a corpus).
func (s *Staging) Commit(m *Manifest) error {
	if err := WriteManifest(s.Dir, m); err != nil {
		return err
	}
	if err := PrepareOut(s.out, s.force); err != nil {
		return err
	}
	if err := os.Remove(s.out); err != nil {
		return err
	}
	return os.Rename(s.Dir, s.out)
}

// Discard removes what is left of the staging folder; after Commit there
// is nothing.
func (s *Staging) Discard() error { return os.RemoveAll(s.Dir) }

// PrepareOut makes sure dir can receive a corpus, creating it if absent. A non-empty folder is
// only replaced with force, and only if everything in it is a corpus's
// (a manifest, conversation folders, partial folders of an interrupted
// run): --force must never empty a folder of someone's other files.
func PrepareOut(dir string, force bool) error {
	entries, err := checkOut(dir, force)
	if errors.Is(err, os.ErrNotExist) {
		return os.MkdirAll(dir, 0o755)
	}
	if err != nil || len(entries) == 0 {
		return err
	}
	// The manifest goes first: from here on the folder is not a corpus.
	if err := os.RemoveAll(filepath.Join(dir, ManifestName)); err != nil {
		return err
	}
	for _, e := range entries {
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

// checkOut says, without changing anything, whether PrepareOut may use
// dir, and returns its entries; an error wrapping os.ErrNotExist when
// there is no such folder.
func checkOut(dir string, force bool) ([]os.DirEntry, error) {
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) == 0 {
		return entries, err
	}
	if !force {
		return nil, fmt.Errorf("output folder %s is not empty (use --force to replace the corpus in it)", dir)
	}
	for _, e := range entries {
		if !corpusEntry(dir, e) {
			return nil, fmt.Errorf("refusing to replace %s: %s is not part of a floorbench corpus", dir, e.Name())
		}
	}
	return entries, nil
}

// corpusEntry reports whether a folder entry is one a generator writes.
func corpusEntry(dir string, e os.DirEntry) bool {
	name := e.Name()
	switch {
	case name == ManifestName || strings.HasPrefix(name, PartialPrefix):
		return true
	case !e.IsDir() || !dialogue.ValidID(name):
		return false
	}
	files, err := os.ReadDir(filepath.Join(dir, name))
	if err != nil {
		return false
	}
	for _, f := range files {
		if f.IsDir() || (f.Name() != EventsName && f.Name() != AnnotationsName && !channelFile.MatchString(f.Name())) {
			return false
		}
	}
	return true
}

// WriteManifest writes corpus.json atomically (temp file, then rename):
// it is written last, so a corpus with a manifest is a finished corpus.
func WriteManifest(dir string, m *Manifest) error {
	data, err := encode(m)
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(dir, ManifestName), PartialPrefix, data)
}
