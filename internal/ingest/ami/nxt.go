package ami

import (
	"bufio"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/floorbench/floorbench/internal/redact"
)

// niteSpace is the namespace of NXT's nite: elements and attributes.
const niteSpace = "http://nite.sourceforge.net/"

// The elements of an AMI words layer (words/<meeting>.<X>.words.xml).
const (
	nxtWord          = "w"
	nxtVocalSound    = "vocalsound"
	nxtDisfMarker    = "disfmarker"
	nxtGap           = "gap"
	nxtNonVocalSound = "nonvocalsound"
	nxtComment       = "comment"
	nxtPause         = "pause"
)

// nxtToken is one element of a words layer, in file order.
type nxtToken struct {
	ID    string
	Name  string // the element: w, vocalsound, disfmarker, ...
	Text  string // a word's text
	Start float64
	End   float64
	Timed bool // both starttime and endtime are present
	Punc  bool // a punctuation token (<w punc="true">)
	Type  string
}

// nxtWords is a parsed words layer with its ids indexed.
type nxtWords struct {
	Tokens []nxtToken
	index  map[string]int
}

// nxtRange is what a nite:child or nite:pointer href names: the elements
// from id First to id Last of File (First == Last for the bare-id form).
type nxtRange struct {
	File        string
	First, Last string
}

// nxtSegment is one <segment> of a segments layer.
type nxtSegment struct {
	ID         string
	Start, End float64 // transcriber_start, transcriber_end
	Children   []nxtRange
}

// nxtDialogueAct is one <dact> of a dialogue-act layer.
type nxtDialogueAct struct {
	ID       string
	Type     string // the id the da-aspect pointer names in da-types.xml
	Children []nxtRange
}

// nxtDecoder wraps encoding/xml's streaming decoder with the position
// and the error wording every NXT reader shares.
type nxtDecoder struct {
	d *xml.Decoder
}

func newNXTDecoder(r io.Reader) *nxtDecoder {
	d := xml.NewDecoder(r)
	d.CharsetReader = charsetReader
	return &nxtDecoder{d: d}
}

// errorf prefixes an error with the line the decoder is at.
func (n *nxtDecoder) errorf(format string, args ...any) error {
	line, _ := n.d.InputPos()
	return fmt.Errorf("line %d: "+format, append([]any{line}, args...)...)
}

// next returns the next start or end element, skipping character data,
// comments and processing instructions; io.EOF at the end.
func (n *nxtDecoder) next() (xml.Token, error) {
	for {
		tok, err := n.d.Token()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil, io.EOF
			}
			return nil, n.errorf("%s", xmlProblem(err))
		}
		switch tok.(type) {
		case xml.StartElement, xml.EndElement:
			return tok, nil
		}
	}
}

// xmlProblem is the XML decoder's error without the document's text it
// quotes (an element or entity name, a character).
func xmlProblem(err error) string {
	var se *xml.SyntaxError
	if errors.As(err, &se) {
		return "not well-formed XML: " + redact.Message(se.Msg)
	}
	return redact.Message(err.Error())
}

// root reads up to the nite:root start element.
func (n *nxtDecoder) root() error {
	tok, err := n.next()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return errors.New("empty document (want a nite:root element)")
		}
		return err
	}
	se, ok := tok.(xml.StartElement)
	if !ok || !isNite(se.Name, "root") {
		return n.errorf("document element <%s> (want nite:root)", qname(se.Name))
	}
	return nil
}

// end checks that nothing but the root's end follows.
func (n *nxtDecoder) end() error {
	if _, err := n.next(); !errors.Is(err, io.EOF) {
		if err != nil {
			return err
		}
		return n.errorf("content after the nite:root element")
	}
	return nil
}

// text reads an element's character data up to its end, refusing child
// elements.
func (n *nxtDecoder) text(name string) (string, error) {
	var b strings.Builder
	for {
		tok, err := n.d.Token()
		if err != nil {
			return "", n.errorf("<%s>: %v", name, err)
		}
		switch t := tok.(type) {
		case xml.CharData:
			b.Write(t)
		case xml.StartElement:
			return "", n.errorf("unknown element <%s> inside <%s>", qname(t.Name), name)
		case xml.EndElement:
			return strings.TrimSpace(b.String()), nil
		}
	}
}

// parseNXTWords reads a words layer. Every element must be one the AMI
// transcription uses; times, where present, must be finite non-negative
// seconds with the end not before the start.
func parseNXTWords(r io.Reader) (*nxtWords, error) {
	w := &nxtWords{index: map[string]int{}}
	err := readLayer(r, func(n *nxtDecoder, se xml.StartElement) error {
		t, err := n.token(se)
		if err != nil {
			return err
		}
		if _, dup := w.index[t.ID]; dup {
			return n.errorf("<%s>: nite:id %q appears twice", t.Name, t.ID)
		}
		w.index[t.ID] = len(w.Tokens)
		w.Tokens = append(w.Tokens, t)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return w, nil
}

// readLayer reads an NXT layer: the root element and, through each, every
// element directly inside it.
func readLayer(r io.Reader, each func(n *nxtDecoder, se xml.StartElement) error) error {
	n := newNXTDecoder(r)
	if err := n.root(); err != nil {
		return err
	}
	for {
		tok, err := n.next()
		if err != nil {
			return err
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			return n.end() // the root's end
		}
		if err := each(n, se); err != nil {
			return err
		}
	}
}

// token reads one element of a words layer.
func (n *nxtDecoder) token(se xml.StartElement) (nxtToken, error) {
	name := qname(se.Name)
	switch name {
	case nxtWord, nxtVocalSound, nxtDisfMarker, nxtGap, nxtNonVocalSound, nxtComment, nxtPause:
	default:
		return nxtToken{}, n.errorf("unknown element <%s> (a words layer holds w, vocalsound, disfmarker, gap, nonvocalsound, comment and pause)", name)
	}
	t := nxtToken{Name: name, ID: niteID(se)}
	if t.ID == "" {
		return nxtToken{}, n.errorf("<%s> without nite:id", name)
	}
	start, hasStart, err := timeAttr(se, "starttime")
	if err != nil {
		return nxtToken{}, n.errorf("<%s> %s: %v", name, shownID(t.ID), err)
	}
	end, hasEnd, err := timeAttr(se, "endtime")
	if err != nil {
		return nxtToken{}, n.errorf("<%s> %s: %v", name, shownID(t.ID), err)
	}
	t.Start, t.End, t.Timed = start, end, hasStart && hasEnd
	if t.Timed && end < start {
		return nxtToken{}, n.errorf("<%s> %s: endtime %v before starttime %v", name, shownID(t.ID), end, start)
	}
	t.Punc = attr(se, "punc") == "true"
	t.Type = attr(se, "type")
	if name != nxtWord {
		return t, n.d.Skip()
	}
	t.Text, err = n.text(name)
	return t, err
}

// parseNXTSegments reads a segments layer.
func parseNXTSegments(r io.Reader) ([]nxtSegment, error) {
	var out []nxtSegment
	err := readLayer(r, func(n *nxtDecoder, se xml.StartElement) error {
		if qname(se.Name) != "segment" {
			return n.errorf("unknown element <%s> (a segments layer holds segment)", qname(se.Name))
		}
		s, err := n.segment(se)
		out = append(out, s)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// segment reads one <segment>: its transcriber times and the words it spans.
func (n *nxtDecoder) segment(se xml.StartElement) (nxtSegment, error) {
	s := nxtSegment{ID: niteID(se)}
	var err error
	for _, a := range []struct {
		name string
		dst  *float64
	}{{"transcriber_start", &s.Start}, {"transcriber_end", &s.End}} {
		var ok bool
		if *a.dst, ok, err = timeAttr(se, a.name); err != nil {
			return s, n.errorf("<segment> %s: %v", shownID(s.ID), err)
		} else if !ok {
			return s, n.errorf("<segment> %s: no %s attribute", shownID(s.ID), a.name)
		}
	}
	if s.End < s.Start {
		return s, n.errorf("<segment> %s: transcriber_end %v before transcriber_start %v", shownID(s.ID), s.End, s.Start)
	}
	s.Children, _, err = n.links("segment", s.ID, false)
	return s, err
}

// links reads the nite:child (and, if pointers, nite:pointer) elements
// inside an element up to its end. It returns the children's ranges and
// the da-aspect pointer's target id.
func (n *nxtDecoder) links(parent, id string, pointers bool) (children []nxtRange, aspect string, err error) {
	for {
		tok, err := n.next()
		if err != nil {
			return nil, "", err
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			return children, aspect, nil
		}
		switch {
		case isNite(se.Name, "child"):
			r, err := parseHref(attr(se, "href"))
			if err != nil {
				return nil, "", n.errorf("<%s> %s: nite:child: %v", parent, shownID(id), err)
			}
			children = append(children, r)
		case pointers && isNite(se.Name, "pointer"):
			if attr(se, "role") == "da-aspect" {
				r, err := parseHref(attr(se, "href"))
				if err != nil || r.First != r.Last {
					return nil, "", n.errorf("<%s> %s: nite:pointer href %q: want file#id(x)", parent, shownID(id), attr(se, "href"))
				}
				aspect = r.First
			}
		default:
			return nil, "", n.errorf("unknown element <%s> inside <%s> %s", qname(se.Name), parent, shownID(id))
		}
		if err := n.d.Skip(); err != nil {
			return nil, "", n.errorf("%v", err)
		}
	}
}

// parseNXTDialogueActs reads a dialogue-act layer.
func parseNXTDialogueActs(r io.Reader) ([]nxtDialogueAct, error) {
	var out []nxtDialogueAct
	err := readLayer(r, func(n *nxtDecoder, se xml.StartElement) error {
		if qname(se.Name) != "dact" {
			return n.errorf("unknown element <%s> (a dialogue-act layer holds dact)", qname(se.Name))
		}
		a := nxtDialogueAct{ID: niteID(se)}
		var err error
		a.Children, a.Type, err = n.links("dact", a.ID, true)
		out = append(out, a)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// parseDATypes reads da-types.xml (nested <da-type> elements) and returns
// every type's id with its gloss (its name where it has no gloss).
func parseDATypes(r io.Reader) (map[string]string, error) {
	n := newNXTDecoder(r)
	if err := n.root(); err != nil {
		return nil, err
	}
	out := map[string]string{}
	depth := 0
	for {
		tok, err := n.next()
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if qname(t.Name) != "da-type" {
				return nil, n.errorf("unknown element <%s> (da-types.xml holds da-type)", qname(t.Name))
			}
			gloss := attr(t, "gloss")
			if gloss == "" {
				gloss = attr(t, "name")
			}
			out[niteID(t)] = gloss
			depth++
		case xml.EndElement:
			if depth == 0 {
				return out, n.end()
			}
			depth--
		}
	}
}

// parseHref splits "file#id(a)..id(b)" or "file#id(a)".
func parseHref(href string) (nxtRange, error) {
	file, frag, ok := strings.Cut(href, "#")
	if !ok || file == "" {
		return nxtRange{}, fmt.Errorf("href %s: want file#id(x) or file#id(x)..id(y)", redact.Name(href))
	}
	first, last, isRange := strings.Cut(frag, "..")
	a, okA := hrefID(first)
	b, okB := a, true
	if isRange {
		b, okB = hrefID(last)
	}
	if !okA || !okB {
		return nxtRange{}, fmt.Errorf("href %s: want file#id(x) or file#id(x)..id(y)", redact.Name(href))
	}
	return nxtRange{File: file, First: a, Last: b}, nil
}

func hrefID(s string) (string, bool) {
	id, ok := strings.CutPrefix(s, "id(")
	if !ok || !strings.HasSuffix(id, ")") || len(id) < 2 {
		return "", false
	}
	return id[:len(id)-1], true
}

// resolve returns the indexes [i, j] of a range's tokens in w; a range
// that names an id w lacks, or runs backwards, is an error.
func (w *nxtWords) resolve(r nxtRange) (int, int, error) {
	i, ok := w.index[r.First]
	if !ok {
		return 0, 0, fmt.Errorf("id %s is not in %s", redact.Name(r.First), r.File)
	}
	j, ok := w.index[r.Last]
	if !ok {
		return 0, 0, fmt.Errorf("id %s is not in %s", redact.Name(r.Last), r.File)
	}
	if j < i {
		return 0, 0, fmt.Errorf("range id(%s)..id(%s) runs backwards", shownID(r.First), shownID(r.Last))
	}
	return i, j, nil
}

// timeAttr parses a time attribute; absent is not an error.
func timeAttr(se xml.StartElement, name string) (float64, bool, error) {
	v, ok := lookupAttr(se, name)
	if !ok {
		return 0, false, nil
	}
	t, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || math.IsNaN(t) || math.IsInf(t, 0) || t < 0 {
		return 0, false, fmt.Errorf("attribute %s=%s is not a time in seconds", name, redact.Name(v))
	}
	return t, true, nil
}

func lookupAttr(se xml.StartElement, local string) (string, bool) {
	for _, a := range se.Attr {
		if a.Name.Local == local && (a.Name.Space == "" || a.Name.Space == niteSpace || a.Name.Space == "nite") {
			return a.Value, true
		}
	}
	return "", false
}

func attr(se xml.StartElement, local string) string {
	v, _ := lookupAttr(se, local)
	return v
}

func niteID(se xml.StartElement) string { return attr(se, "id") }

// shownID is an id as an error shows it: as the file spells it, or quoted
// when it is empty or holds a space, a line break or another character
// that would blur or break the one error line.
func shownID(id string) string {
	for _, r := range id {
		if !unicode.IsPrint(r) || unicode.IsSpace(r) {
			return strconv.Quote(id)
		}
	}
	if id == "" {
		return `""`
	}
	return id
}

func isNite(n xml.Name, local string) bool {
	return n.Local == local && (n.Space == niteSpace || n.Space == "nite")
}

// qname writes an element name as the file spells it for nite: names.
func qname(n xml.Name) string {
	if n.Space == niteSpace || n.Space == "nite" {
		return "nite:" + n.Local
	}
	return n.Local
}

// charsetReader decodes the ISO-8859-1 the AMI NXT files declare (and
// its aliases); encoding/xml reads UTF-8 itself.
func charsetReader(label string, in io.Reader) (io.Reader, error) {
	switch strings.ToLower(label) {
	case "iso-8859-1", "iso8859-1", "latin1", "latin-1", "us-ascii", "ascii":
		return &latin1Reader{r: bufio.NewReader(in)}, nil
	}
	return nil, fmt.Errorf("unsupported encoding %q (want UTF-8 or ISO-8859-1)", label)
}

// latin1Reader turns ISO-8859-1 bytes into UTF-8.
type latin1Reader struct {
	r       *bufio.Reader
	pending []byte
}

func (l *latin1Reader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if len(l.pending) > 0 {
			c := copy(p[n:], l.pending)
			l.pending, n = l.pending[c:], n+c
			continue
		}
		b, err := l.r.ReadByte()
		if err != nil {
			if n > 0 {
				return n, nil
			}
			return 0, err
		}
		if b < utf8.RuneSelf {
			p[n] = b
			n++
			continue
		}
		l.pending = utf8.AppendRune(nil, rune(b))
	}
	return n, nil
}
