package synth

import (
	"fmt"
	"math"
	"testing"

	"github.com/floorbench/floorbench/internal/dialogue"
	"github.com/floorbench/floorbench/internal/floor"
)

func plansFor(typ dialogue.InteractionType, speakers, n int) []FloorPlan {
	var out []FloorPlan
	for i := range n {
		spec := ConversationSpec{ID: fmt.Sprintf("p%d", i), Split: dialogue.Test, Type: typ, Speakers: speakers, Seconds: 100}
		s := WriteScript(spec, StreamFor(1, spec.ID, StageScript))
		out = append(out, PlanFloor(s, StreamFor(1, spec.ID, StageFloor), StreamFor(1, spec.ID, StageOverlap)))
	}
	return out
}

func TestFloorPlanIsWellFormed(t *testing.T) {
	for _, typ := range dialogue.InteractionTypes {
		for _, p := range plansFor(typ, 4, 5) {
			for i, a := range p.Acts {
				if a.Speaker < 1 || a.Speaker > 4 {
					t.Fatalf("%s act %d: speaker %d", typ, i, a.Speaker)
				}
				switch a.Kind {
				case floor.Turn:
					if len(a.Holds) != len(a.Segments)-1 || a.Follows >= i {
						t.Fatalf("%s act %d: %d segments, %d holds, follows %d", typ, i, len(a.Segments), len(a.Holds), a.Follows)
					}
					if a.Follows >= 0 && p.Acts[a.Follows].Speaker == a.Speaker && p.Acts[a.Follows].Kind == floor.Turn {
						t.Fatalf("%s act %d: speaker %d follows their own turn", typ, i, a.Speaker)
					}
				case floor.Interruption:
					host := p.Acts[a.Host]
					if host.Ending != floor.Interrupted || host.Speaker == a.Speaker || len(host.Holds) > 0 {
						t.Fatalf("%s act %d: claim on a turn ending %s by speaker %d", typ, i, host.Ending, host.Speaker)
					}
					if next := p.Acts[i+1]; next.Kind != floor.Turn || next.Speaker != a.Speaker || next.Follows != i {
						t.Fatalf("%s act %d: claimer does not go on talking", typ, i)
					}
				default:
					if host := p.Acts[a.Host]; host.Kind != floor.Turn || host.Speaker == a.Speaker {
						t.Fatalf("%s act %d: %s by the holder or not on a turn", typ, i, a.Kind)
					}
				}
			}
		}
	}
}

func TestFloorPlanRatesFollowTheStyle(t *testing.T) {
	// Planned claims per planned minute, over many plans, track the style:
	// collaborative has the most interruptions, narrative the longest turns.
	rate := map[dialogue.InteractionType]float64{}
	words := map[dialogue.InteractionType]float64{}
	for _, typ := range dialogue.InteractionTypes {
		var claims, turns, w, secs float64
		for _, p := range plansFor(typ, 3, 30) {
			for _, a := range p.Acts {
				switch a.Kind {
				case floor.Interruption:
					claims++
				case floor.Turn:
					turns++
					for _, u := range a.Segments {
						w += float64(len(u.Text))
					}
				}
			}
			secs += p.Spec.Seconds
		}
		rate[typ], words[typ] = claims/(secs/60), w/turns
	}
	for _, typ := range dialogue.InteractionTypes {
		if typ != dialogue.Collaborative && rate[typ] >= rate[dialogue.Collaborative] {
			t.Errorf("%s plans %.2f claims/min, collaborative %.2f", typ, rate[typ], rate[dialogue.Collaborative])
		}
		if typ != dialogue.Narrative && words[typ] >= words[dialogue.Narrative] {
			t.Errorf("%s turns are as long as narrative ones", typ)
		}
		if want := StyleOf(typ).Interruptions * interruptBoost; math.Abs(rate[typ]-want)/want > 0.35 {
			t.Errorf("%s: %.2f claims/min planned, style says %.2f", typ, rate[typ], want)
		}
	}
}
