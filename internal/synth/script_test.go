package synth

import (
	"reflect"
	"testing"

	"github.com/floorbench/floorbench/internal/dialogue"
)

func TestScriptsAlternateSpeakersAndFillTheirLength(t *testing.T) {
	for _, typ := range dialogue.InteractionTypes {
		spec := ConversationSpec{ID: "s", Split: dialogue.Dev, Type: typ, Speakers: 4, Seconds: 90}
		s := WriteScript(spec, StreamFor(3, "s", StageScript))
		if !reflect.DeepEqual(s, WriteScript(spec, StreamFor(3, "s", StageScript))) {
			t.Fatalf("%s: the same stream wrote two scripts", typ)
		}
		words, spoke := 0, map[int]bool{}
		for i, l := range s.Lines {
			if i > 0 && l.Speaker == s.Lines[i-1].Speaker {
				t.Fatalf("%s line %d: speaker %d twice in a row", typ, i, l.Speaker)
			}
			if len(l.Sentences) == 0 || l.Words() == 0 {
				t.Fatalf("%s line %d is empty", typ, i)
			}
			words += l.Words()
			spoke[l.Speaker] = true
		}
		if secs := float64(words) / WordsPerSecond; secs < 0.8*spec.Seconds || secs > 1.2*spec.Seconds {
			t.Fatalf("%s: %.0f s of planned speech for a %v s conversation", typ, secs, spec.Seconds)
		}
		if len(spoke) < 3 {
			t.Fatalf("%s: only %d of 4 speakers hold the floor", typ, len(spoke))
		}
	}
}
