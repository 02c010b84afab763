package ami

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/redact"
)

// amiLetters are AMI's speaker letters; headset n belongs to letter n.
var amiLetters = []string{"A", "B", "C", "D", "E"}

// amiSpeaker is what the NXT annotations say about one speaker letter.
type amiSpeaker struct {
	Letter       string
	Annotated    bool // a words file exists
	Vocal        []floor.Vocalisation
	Words        int // timed words
	WordsDropped int // words without times
	Segments     int
	Overlapping  int // segments starting before the previous one ended
	DABackchans  int // dialogue acts of type Backchannel
}

// amiMeeting is one meeting's annotations and the files they came from.
type amiMeeting struct {
	ID       string
	Speakers []amiSpeaker // one per letter A..E
	Sources  []string     // NXT files read, relative to the NXT folder
}

// nxtPath returns an NXT layer's path: <nxt>/<dir>/<meeting>.<X>.<layer>.xml.
func nxtPath(nxt, dir, meeting, letter, layer string) string {
	return filepath.Join(nxt, dir, meeting+"."+letter+"."+layer+".xml")
}

// readAMIMeeting reads the words, segments and dialogue acts of every
// speaker of a meeting. Segments and dialogue acts are optional; every
// href they hold must resolve in the speaker's words file.
func readAMIMeeting(nxt, meeting string, lim limits.Limits) (*amiMeeting, error) {
	m := &amiMeeting{ID: meeting}
	var daTypes map[string]string
	for _, letter := range amiLetters {
		sp := amiSpeaker{Letter: letter}
		wordsPath := nxtPath(nxt, "words", meeting, letter, "words")
		w, err := readNXT(wordsPath, lim, parseNXTWords)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
		segPath := nxtPath(nxt, "segments", meeting, letter, "segments")
		daPath := nxtPath(nxt, "dialogueActs", meeting, letter, "dialog-act")
		if w == nil {
			for _, p := range []string{segPath, daPath} {
				if _, err := os.Stat(p); err == nil {
					return nil, fmt.Errorf("%s: refers to %s, which does not exist", p, wordsPath)
				}
			}
			m.Speakers = append(m.Speakers, sp)
			continue
		}
		sp.Annotated = true
		m.Sources = append(m.Sources, rel(nxt, wordsPath))
		das := make([]floor.DialogueAct, len(w.Tokens))
		if found, err := readSegments(segPath, w, &sp, lim); err != nil {
			return nil, err
		} else if found {
			m.Sources = append(m.Sources, rel(nxt, segPath))
		}
		acts, err := readNXT(daPath, lim, parseNXTDialogueActs)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
		if acts != nil {
			if daTypes == nil {
				typesPath, types, err := readDATypes(nxt, lim)
				if err != nil {
					return nil, fmt.Errorf("%s needs da-types.xml: %w", daPath, err)
				}
				daTypes = types
				m.Sources = append(m.Sources, rel(nxt, typesPath))
			}
			m.Sources = append(m.Sources, rel(nxt, daPath))
			if err := markDialogueActs(daPath, acts, daTypes, w, das, &sp); err != nil {
				return nil, err
			}
		}
		sp.Vocal, sp.Words, sp.WordsDropped = vocalisations(w, das)
		m.Speakers = append(m.Speakers, sp)
	}
	return m, nil
}

// readNXT opens and parses one NXT file of at most lim's source_bytes;
// errors name it.
func readNXT[T any](path string, lim limits.Limits, parse func(io.Reader) (T, error)) (T, error) {
	var zero T
	f, err := lim.OpenSource(path)
	if err != nil {
		return zero, err
	}
	defer f.Close()
	v, err := parse(f)
	if err != nil {
		return zero, fmt.Errorf("%s: %w", path, err)
	}
	return v, nil
}

// readSegments reads a speaker's segments, if the file exists, checks that
// every child href resolves in the words file and counts the segments.
func readSegments(path string, w *nxtWords, sp *amiSpeaker, lim limits.Limits) (bool, error) {
	segs, err := readNXT(path, lim, parseNXTSegments)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	want := strings.TrimSuffix(filepath.Base(path), ".segments.xml") + ".words.xml"
	prevEnd := -1.0
	for _, s := range segs {
		for _, c := range s.Children {
			if err := checkRange(c, want, w); err != nil {
				return false, fmt.Errorf("%s: <segment> %s: %w", path, shownID(s.ID), err)
			}
		}
		if s.Start < prevEnd {
			sp.Overlapping++
		}
		prevEnd = max(prevEnd, s.End)
	}
	sp.Segments = len(segs)
	return true, nil
}

// checkRange checks that an href points into the speaker's words file and
// that both its ids are there.
func checkRange(r nxtRange, wordsFile string, w *nxtWords) error {
	if r.File != wordsFile {
		return fmt.Errorf("href into %s (want %s)", r.File, wordsFile)
	}
	_, _, err := w.resolve(r)
	return err
}

// readDATypes finds and reads da-types.xml: <nxt>/ontologies/da-types.xml
// as the AMI release has it, else <nxt>/da-types.xml.
func readDATypes(nxt string, lim limits.Limits) (string, map[string]string, error) {
	for _, p := range []string{filepath.Join(nxt, "ontologies", "da-types.xml"), filepath.Join(nxt, "da-types.xml")} {
		types, err := readNXT(p, lim, parseDATypes)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		return p, types, err
	}
	return "", nil, fmt.Errorf("no %s or %s", filepath.Join(nxt, "ontologies", "da-types.xml"), filepath.Join(nxt, "da-types.xml"))
}

// markDialogueActs records, per words-file token, whether a dialogue act of
// type Backchannel covers it (types whose gloss or name is "Backchannel"
// or "bck").
func markDialogueActs(path string, acts []nxtDialogueAct, types map[string]string, w *nxtWords, das []floor.DialogueAct, sp *amiSpeaker) error {
	want := strings.TrimSuffix(filepath.Base(path), ".dialog-act.xml") + ".words.xml"
	for _, a := range acts {
		gloss, ok := types[a.Type]
		if !ok {
			return fmt.Errorf("%s: <dact> %s: da-aspect id %s is not in da-types.xml", path, shownID(a.ID), redact.Name(a.Type))
		}
		class := floor.DAOther
		if g := strings.ToLower(gloss); g == "backchannel" || g == "bck" {
			class = floor.DABackchannel
			sp.DABackchans++
		}
		for _, c := range a.Children {
			if err := checkRange(c, want, w); err != nil {
				return fmt.Errorf("%s: <dact> %s: %w", path, shownID(a.ID), err)
			}
			i, j, _ := w.resolve(c)
			for k := i; k <= j; k++ {
				das[k] = class
			}
		}
	}
	return nil
}

// vocalisations lists a words file's timed words (not punctuation) and
// vocal sounds; it counts the words and the words without times, which
// are dropped. A word followed by a "?" token ends a question.
func vocalisations(w *nxtWords, das []floor.DialogueAct) (out []floor.Vocalisation, words, dropped int) {
	for i, t := range w.Tokens {
		switch {
		case t.Name == nxtWord && !t.Punc:
			if !t.Timed {
				dropped++
				continue
			}
			words++
			q := i+1 < len(w.Tokens) && w.Tokens[i+1].Punc && w.Tokens[i+1].Text == "?"
			out = append(out, floor.Vocalisation{Start: t.Start, End: t.End, Word: t.Text, Question: q, DA: das[i]})
		case t.Name == nxtVocalSound && t.Timed:
			out = append(out, floor.Vocalisation{Start: t.Start, End: t.End})
		}
	}
	return out, words, dropped
}

// rel is path relative to root with forward slashes, for the manifest.
func rel(root, path string) string {
	r, err := filepath.Rel(root, path)
	if err != nil {
		return filepath.ToSlash(path)
	}
	return filepath.ToSlash(r)
}
