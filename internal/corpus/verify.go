package corpus

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// maxLabelsFile bounds a labels file (events.json, annotations.json).
const maxLabelsFile = maxManifest

// MaxFileSize is the most bytes file name of conversation conv may hold.
// The manifest records each file's sha256 and the conversation's length in
// samples, not file sizes, so the bound is derived from the length: a
// channel holds at most 32-bit samples at 48 kHz for it plus a megabyte of
// header chunks. Readers refuse a larger file before reading it.
func MaxFileSize(conv Conversation, name string) int64 {
	if strings.HasSuffix(name, ".wav") {
		return 1<<20 + 12*int64(conv.Samples)
	}
	return maxLabelsFile
}

// ErrTooLarge is the error of a file or object with more bytes than its
// manifest allows.
var ErrTooLarge = errors.New("more bytes than the manifest allows")

// Mismatch is a file whose bytes are not those the manifest records.
type Mismatch struct {
	Want, Got string // hex sha256
}

func (m *Mismatch) Error() string {
	return fmt.Sprintf("sha256 %s, the manifest says %s", m.Got, m.Want)
}

// OpenFile opens file name of conversation conv. Only a regular file
// inside the corpus folder is opened: a symbolic link (to a file outside,
// or to /dev/zero), a device or a pipe is refused before anything is read,
// as is a file larger than MaxFileSize.
func (c *Corpus) OpenFile(conv Conversation, name string) (*os.File, error) {
	path := filepath.Join(c.Dir, conv.ID, name)
	root, err := os.OpenRoot(c.Dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	if fi, err := root.Lstat(conv.ID); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(c.Dir, conv.ID), unwrapPath(err))
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("%s: %w", filepath.Join(c.Dir, conv.ID), notAFolder(fi))
	}
	rel := filepath.Join(conv.ID, name)
	fi, err := root.Lstat(rel)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, unwrapPath(err))
	}
	if err := regularFile(fi); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if max := MaxFileSize(conv, name); fi.Size() > max {
		return nil, fmt.Errorf("%s: %d bytes, more than the %d a conversation of %d samples allows", path, fi.Size(), max, conv.Samples)
	}
	f, err := root.Open(rel)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, unwrapPath(err))
	}
	// The file must be the one just checked, not one put in its place.
	if now, err := f.Stat(); err != nil || !os.SameFile(fi, now) {
		f.Close()
		return nil, fmt.Errorf("%s: replaced while being opened", path)
	}
	return f, nil
}

// regularFile refuses anything but a regular file.
func regularFile(fi fs.FileInfo) error {
	switch m := fi.Mode(); {
	case m.IsRegular():
		return nil
	case m&fs.ModeSymlink != 0:
		return errors.New("is a symbolic link; a corpus folder holds its own files, not links to others")
	case m.IsDir():
		return errors.New("is a folder, not a file")
	default:
		return fmt.Errorf("is not a regular file (mode %s)", m)
	}
}

// notAFolder says why a conversation's folder is not one.
func notAFolder(fi fs.FileInfo) error {
	if fi.Mode()&fs.ModeSymlink != 0 {
		return errors.New("is a symbolic link, not a folder of the corpus")
	}
	return errors.New("is not a folder")
}

// unwrapPath drops the relative path an *fs.PathError adds, since the
// caller names the full one.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// VerifyFile reads file name of conversation conv as a stream and checks
// it against the sha256 the manifest records; a *Mismatch (wrapped, naming
// the file) when it differs.
func (c *Corpus) VerifyFile(conv Conversation, name string) error {
	f, err := c.OpenFile(conv, name)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := io.Copy(io.Discard, Verified(f, conv.Files[name], MaxFileSize(conv, name))); err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(c.Dir, conv.ID, name), err)
	}
	return nil
}

// Verify checks every file the manifest names against its sha256 and
// returns the first mismatch. Together with the manifest, which records
// those hashes, it makes the corpus's identity cover every byte.
func (c *Corpus) Verify() error {
	for _, conv := range c.Manifest.Conversations {
		for _, name := range FilesOf(c.Manifest.Kind, conv) {
			if err := c.VerifyFile(conv, name); err != nil {
				return err
			}
		}
	}
	return nil
}

// Verified wraps r so that reading it checks its bytes: once more than max
// bytes were read it returns an error, and at the end of r a *Mismatch
// instead of io.EOF when their sha256 is not want.
func Verified(r io.Reader, want string, max int64) io.Reader {
	return &verifiedReader{r: r, h: sha256.New(), want: want, max: max}
}

type verifiedReader struct {
	r    io.Reader
	h    hash.Hash
	n    int64
	max  int64
	want string
}

func (v *verifiedReader) Read(p []byte) (int, error) {
	n, err := v.r.Read(p)
	v.h.Write(p[:n])
	v.n += int64(n)
	if v.n > v.max {
		return n, fmt.Errorf("%w (more than %d)", ErrTooLarge, v.max)
	}
	if err == io.EOF {
		if got := hex.EncodeToString(v.h.Sum(nil)); got != v.want {
			return n, &Mismatch{Want: v.want, Got: got}
		}
	}
	return n, err
}

// VerifiedFile is Verified over an opened file of known size: it also
// reports the size (as Len), so a store can upload it with its length, and
// checks the sha256 as soon as size bytes were read, since such an upload
// stops there without reading to the end.
func VerifiedFile(f *os.File, want string) (io.Reader, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	return &verifiedFile{verifiedReader{r: f, h: sha256.New(), want: want, max: fi.Size()}}, nil
}

type verifiedFile struct{ verifiedReader }

// Len is how many bytes are left to read.
func (v *verifiedFile) Len() int { return int(v.max - v.n) }

func (v *verifiedFile) Read(p []byte) (int, error) {
	n, err := v.verifiedReader.Read(p)
	if err == nil && v.n == v.max {
		if got := hex.EncodeToString(v.h.Sum(nil)); got != v.want {
			return n, &Mismatch{Want: v.want, Got: got}
		}
	}
	return n, err
}
