package corpus_test

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/floorbench/floorbench/internal/audit/auditfixture"
	"github.com/floorbench/floorbench/internal/corpus"
	"github.com/floorbench/floorbench/internal/limits"
)

// fixture writes a small corpus (2 conversations, 2 channels each).
func fixture(t *testing.T) *corpus.Corpus {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "corpus")
	if err := auditfixture.Write(dir, auditfixture.Small(), 1); err != nil {
		t.Fatal(err)
	}
	c, err := corpus.Open(dir, limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func checkProblems(t *testing.T, dir string) string {
	t.Helper()
	r, err := corpus.Check(dir, limits.Default())
	if err != nil {
		return err.Error()
	}
	var s []string
	for _, p := range r.Problems {
		s = append(s, p.String())
	}
	return strings.Join(s, "\n")
}

// One changed byte in a channel is a mismatch naming the file and both
// hashes, for Verify and for Check.
func TestOneChangedByteFailsVerification(t *testing.T) {
	t.Parallel()
	c := fixture(t)
	if err := c.Verify(); err != nil {
		t.Fatalf("clean corpus: %v", err)
	}
	if p := checkProblems(t, c.Dir); p != "" {
		t.Fatalf("clean corpus: %s", p)
	}
	conv := c.Manifest.Conversations[1]
	wav := filepath.Join(c.Dir, conv.ID, corpus.ChannelName(2))
	data, err := os.ReadFile(wav)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 0x10
	if err := os.WriteFile(wav, data, 0o644); err != nil {
		t.Fatal(err)
	}
	err = c.Verify()
	var m *corpus.Mismatch
	if !errors.As(err, &m) || m.Want != conv.Files[corpus.ChannelName(2)] || !strings.HasPrefix(err.Error(), wav+": sha256 "+m.Got+", the manifest says "+m.Want) {
		t.Fatalf("Verify: %v", err)
	}
	if p := checkProblems(t, c.Dir); !strings.Contains(p, wav+": sha256 ") {
		t.Fatalf("check problems: %q", p)
	}
}

// A symbolic link in a corpus folder is refused, even to a file with the
// very bytes the manifest records, by every reader of the folder.
func TestSymlinkToAFileOutsideIsRefused(t *testing.T) {
	t.Parallel()
	for _, name := range []string{corpus.ChannelName(1), corpus.EventsName} {
		t.Run(name, func(t *testing.T) {
			c := fixture(t)
			conv := c.Manifest.Conversations[0]
			path := filepath.Join(c.Dir, conv.ID, name)
			outside := filepath.Join(t.TempDir(), name)
			if err := os.Rename(path, outside); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(outside, path); err != nil {
				t.Fatal(err)
			}
			want := path + ": is a symbolic link"
			if err := c.Verify(); err == nil || !strings.HasPrefix(err.Error(), want) {
				t.Errorf("Verify: %v", err)
			}
			if p := checkProblems(t, c.Dir); !strings.Contains(p, conv.ID+": "+want) {
				t.Errorf("check problems: %q", p)
			}
			if name == corpus.EventsName {
				if _, err := corpus.Gold(c.Dir, "", limits.Default()); err == nil || !strings.HasPrefix(err.Error(), want) {
					t.Errorf("Gold: %v", err)
				}
				return
			}
			if _, err := c.ReadChannel16k(conv, 1); err == nil || !strings.HasPrefix(err.Error(), want) {
				t.Errorf("ReadChannel16k: %v", err)
			}
		})
	}
}

// A channel linked to /dev/zero is refused before it is read: check and
// the readers return an error instead of reading without end.
func TestSymlinkToDevZeroIsRefusedWithoutReading(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	c := fixture(t)
	conv := c.Manifest.Conversations[0]
	for _, name := range []string{corpus.ChannelName(1), corpus.EventsName} {
		path := filepath.Join(c.Dir, conv.ID, name)
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("/dev/zero", path); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan string, 1)
	go func() {
		_, goldErr := corpus.Gold(c.Dir, "", limits.Default())
		_, _, readErr := c.ReadChannel(conv, 1)
		done <- checkProblems(t, c.Dir) + "\n" + fmt.Sprint(goldErr) + "\n" + fmt.Sprint(readErr)
	}()
	select {
	case got := <-done:
		for _, name := range []string{corpus.ChannelName(1), corpus.EventsName} {
			if !strings.Contains(got, filepath.Join(c.Dir, conv.ID, name)+": is a symbolic link") {
				t.Errorf("%s not refused as a link:\n%s", name, got)
			}
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("reading a corpus with a channel linked to /dev/zero did not return")
	}
}

// A regular file larger than its conversation allows is refused unread.
func TestOversizedFileIsRefused(t *testing.T) {
	t.Parallel()
	c := fixture(t)
	conv := c.Manifest.Conversations[0]
	path := filepath.Join(c.Dir, conv.ID, corpus.ChannelName(1))
	if err := os.Truncate(path, corpus.MaxFileSize(conv, corpus.ChannelName(1))+1); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.ReadChannel(conv, 1); err == nil || !strings.Contains(err.Error(), path+": ") || !strings.Contains(err.Error(), "bytes, more than the") {
		t.Fatalf("ReadChannel: %v", err)
	}
}

// A conversation folder linked to one outside the corpus is refused.
func TestLinkedConversationFolderIsRefused(t *testing.T) {
	t.Parallel()
	c := fixture(t)
	conv := c.Manifest.Conversations[0]
	folder := filepath.Join(c.Dir, conv.ID)
	outside := filepath.Join(t.TempDir(), conv.ID)
	if err := os.Rename(folder, outside); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, folder); err != nil {
		t.Fatal(err)
	}
	want := folder + ": is a symbolic link, not a folder of the corpus"
	if _, err := corpus.Gold(c.Dir, "", limits.Default()); err == nil || err.Error() != want {
		t.Errorf("Gold: %v", err)
	}
	if _, err := c.ReadChannel16k(conv, 2); err == nil || err.Error() != want {
		t.Errorf("ReadChannel16k: %v", err)
	}
	if p := checkProblems(t, c.Dir); p != conv.ID+": "+want {
		t.Errorf("check problems: %q", p)
	}
}

// An upload of known length reads a file's bytes and stops; the check
// runs at the last byte, not only at the end of the stream.
func TestVerifiedFileChecksAtItsLastByte(t *testing.T) {
	t.Parallel()
	c := fixture(t)
	conv := c.Manifest.Conversations[0]
	for _, want := range []string{conv.Files[corpus.EventsName], strings.Repeat("0", 64)} {
		f, err := c.OpenFile(conv, corpus.EventsName)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		fi, _ := f.Stat()
		r, err := corpus.VerifiedFile(f, want)
		if err != nil {
			t.Fatal(err)
		}
		if n := r.(interface{ Len() int }).Len(); int64(n) != fi.Size() {
			t.Fatalf("Len %d, file of %d bytes", n, fi.Size())
		}
		// What a store uploading the file with its length reads.
		_, err = io.Copy(io.Discard, io.LimitReader(r, fi.Size()))
		var m *corpus.Mismatch
		if matches := want == conv.Files[corpus.EventsName]; matches && err != nil || !matches && !errors.As(err, &m) {
			t.Errorf("want %s: %v", want, err)
		}
	}
}
