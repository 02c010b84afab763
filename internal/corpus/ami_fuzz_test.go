package corpus

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// addFixtures seeds a fuzz target with the fixture files of one layer.
func addFixtures(f *testing.F, pattern string) {
	paths, err := filepath.Glob(filepath.Join(amiNXT, pattern))
	if err != nil || len(paths) == 0 {
		f.Fatalf("no fixtures %s: %v", pattern, err)
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
}

// FuzzParseNXTWords: any input is parsed or refused with an error, and
// what parses keeps its promises (indexed ids, ordered times).
func FuzzParseNXTWords(f *testing.F) {
	addFixtures(f, "words/*.xml")
	f.Fuzz(func(t *testing.T, data []byte) {
		w, err := parseNXTWords(bytes.NewReader(data))
		if err != nil {
			return
		}
		for i, tok := range w.Tokens {
			if w.index[tok.ID] != i {
				t.Fatalf("token %d id %q not indexed", i, tok.ID)
			}
			if tok.Timed && !(tok.End >= tok.Start && tok.Start >= 0) {
				t.Fatalf("token %d times %v..%v", i, tok.Start, tok.End)
			}
		}
	})
}

// FuzzParseNXTSegments: segments parse or fail; parsed hrefs are whole.
func FuzzParseNXTSegments(f *testing.F) {
	addFixtures(f, "segments/*.xml")
	f.Fuzz(func(t *testing.T, data []byte) {
		segs, err := parseNXTSegments(bytes.NewReader(data))
		if err != nil {
			return
		}
		for _, s := range segs {
			if s.End < s.Start {
				t.Fatalf("segment %s ends before it starts", s.ID)
			}
			for _, c := range s.Children {
				if c.File == "" || c.First == "" || c.Last == "" {
					t.Fatalf("segment %s: partial range %+v", s.ID, c)
				}
			}
		}
	})
}

// FuzzParseNXTDialogueActs covers dialogue acts and da-types.xml.
func FuzzParseNXTDialogueActs(f *testing.F) {
	addFixtures(f, "dialogueActs/*.xml")
	addFixtures(f, "ontologies/*.xml")
	f.Fuzz(func(t *testing.T, data []byte) {
		parseNXTDialogueActs(bytes.NewReader(data))
		parseDATypes(bytes.NewReader(data))
	})
}
