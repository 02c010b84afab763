package ami

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"strings"
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

// FuzzParseNXTWords: any input is parsed or refused with one error line, and
// what parses keeps its promises (indexed ids, ordered times).
func FuzzParseNXTWords(f *testing.F) {
	addFixtures(f, "words/*.xml")
	f.Add([]byte(`<nite:root xmlns:nite="http://nite.sourceforge.net/"><w nite:id="w&#10;1" starttime="x">a</w></nite:root>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		w, err := parseNXTWords(bytes.NewReader(data))
		if err != nil {
			oneLine(t, err)
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

// FuzzParseNXTSegments: segments parse or fail with one error line;
// parsed hrefs are whole.
func FuzzParseNXTSegments(f *testing.F) {
	addFixtures(f, "segments/*.xml")
	f.Add([]byte(`<nite:root xmlns:nite="http://nite.sourceforge.net/"><segment nite:id="s&#10;1" transcriber_start="x"/></nite:root>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		segs, err := parseNXTSegments(bytes.NewReader(data))
		if err != nil {
			oneLine(t, err)
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

// FuzzParseNXTDialogueActs covers dialogue acts and da-types.xml: an input
// is refused with one error line, or what it gives has whole child ranges
// and survives writing it back as NXT and parsing again unchanged.
func FuzzParseNXTDialogueActs(f *testing.F) {
	addFixtures(f, "dialogueActs/*.xml")
	addFixtures(f, "ontologies/*.xml")
	// Refused: child hrefs without an id or with an empty one, an element
	// a dialogue-act layer does not hold.
	f.Add([]byte(`<nite:root xmlns:nite="http://nite.sourceforge.net/"><dact nite:id="d1"><nite:child href="w.xml#x"/></dact></nite:root>`))
	f.Add([]byte(`<nite:root xmlns:nite="http://nite.sourceforge.net/"><dact nite:id="d1"><nite:child href="w.xml#id()..id(w2)"/></dact></nite:root>`))
	f.Add([]byte(`<nite:root xmlns:nite="http://nite.sourceforge.net/"><segment nite:id="s1"/></nite:root>`))
	// An id holding a line break must not break the error line.
	f.Add([]byte(`<nite:root xmlns:nite="http://nite.sourceforge.net/"><dact nite:id="d&#10;1"><bogus/></dact></nite:root>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		acts, err := parseNXTDialogueActs(bytes.NewReader(data))
		if err != nil {
			oneLine(t, err)
		} else {
			for _, a := range acts {
				for _, c := range a.Children {
					if c.File == "" || c.First == "" || c.Last == "" {
						t.Fatalf("dialogue act %q: partial range %+v", a.ID, c)
					}
				}
			}
			again, err := parseNXTDialogueActs(strings.NewReader(encodeNXTDialogueActs(acts)))
			if err != nil || !reflect.DeepEqual(again, acts) {
				t.Fatalf("written back and parsed again: %+v, %v\nwant %+v", again, err, acts)
			}
		}
		types, err := parseDATypes(bytes.NewReader(data))
		if err != nil {
			oneLine(t, err)
			return
		}
		again, err := parseDATypes(strings.NewReader(encodeDATypes(types)))
		if err != nil || !maps.Equal(again, types) {
			t.Fatalf("da-types written back and parsed again: %v, %v\nwant %v", again, err, types)
		}
	})
}

func oneLine(t *testing.T, err error) {
	t.Helper()
	if strings.Contains(err.Error(), "\n") {
		t.Fatalf("an error must be one line: %q", err)
	}
}

// nxtRoot opens and closes an NXT document.
const (
	nxtRootStart = `<nite:root xmlns:nite="http://nite.sourceforge.net/">`
	nxtRootEnd   = `</nite:root>`
)

// xmlAttr escapes s for a double-quoted attribute value.
func xmlAttr(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s))
	return b.String()
}

// encodeNXTDialogueActs writes acts as a dialogue-act layer, the way the
// AMI files spell them.
func encodeNXTDialogueActs(acts []nxtDialogueAct) string {
	var b strings.Builder
	b.WriteString(nxtRootStart)
	for _, a := range acts {
		fmt.Fprintf(&b, `<dact nite:id="%s">`, xmlAttr(a.ID))
		if a.Type != "" {
			fmt.Fprintf(&b, `<nite:pointer role="da-aspect" href="%s"/>`, xmlAttr("da-types.xml#id("+a.Type+")"))
		}
		for _, c := range a.Children {
			href := c.File + "#id(" + c.First + ")"
			if c.Last != c.First {
				href += "..id(" + c.Last + ")"
			}
			fmt.Fprintf(&b, `<nite:child href="%s"/>`, xmlAttr(href))
		}
		b.WriteString(`</dact>`)
	}
	b.WriteString(nxtRootEnd)
	return b.String()
}

// encodeDATypes writes types as a flat da-types.xml.
func encodeDATypes(types map[string]string) string {
	var b strings.Builder
	b.WriteString(nxtRootStart)
	for id, gloss := range types {
		fmt.Fprintf(&b, `<da-type nite:id="%s" gloss="%s"/>`, xmlAttr(id), xmlAttr(gloss))
	}
	b.WriteString(nxtRootEnd)
	return b.String()
}
