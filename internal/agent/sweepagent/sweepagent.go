// Package sweepagent is a sweep spec's agent (spec.Agent) as the agent
// feature plays it: the harness's and the seats' options its settings
// give, the keys its trials' and seats' recordings are stored under, its
// seats on a corpus, and how long playing them takes. The activities, the
// preview and the in-process executor call it, so that what a sweep plays
// and what the preview says it would play are one computation; the rules
// themselves (what a key hashes, what a version covers) are the harness's,
// seated's and keys'.
package sweepagent

import (
	"time"

	"github.com/floorbench/floorbench/internal/agent"
	"github.com/floorbench/floorbench/internal/agent/harness"
	"github.com/floorbench/floorbench/internal/agent/seated"
	"github.com/floorbench/floorbench/internal/corpus"
	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/spec"
)

// Hash is the hash of a's identity (spec.AgentIdentity): the first
// segment of every key of its recordings and results.
func Hash(a spec.Agent) string { return keys.Agent(a.Identity()) }

// HarnessOptions are how a sweep plays a's trials: the scorer's VAD and
// windows, the harness's default waits, and a's acoustic conditions.
func HarnessOptions(a spec.Agent) harness.Options {
	o := harness.DefaultOptions(a.Name, a.Protocol, a.Model)
	if a.Acoustics != nil {
		o.Acoustics = *a.Acoustics
	}
	return o
}

// TrialPlayHash identifies how a's trials are played (harness.PlayHash).
func TrialPlayHash(a spec.Agent) string { return harness.PlayHash(HarnessOptions(a)) }

// TrialKey is the prefix of the recording of a's repeat-th play of the
// scenario with content hash scenario.
func TrialKey(a spec.Agent, scenario string, repeat int) string {
	return keys.Trial(Hash(a), scenario, repeat, TrialPlayHash(a))
}

// EstimateTrials is how long playing set to a takes at most on the wall:
// harness.Estimate at its rate, repeats and concurrency.
func EstimateTrials(a spec.Agent, set *agent.Set) time.Duration {
	return harness.Estimate(set, harness.RunOptions{Options: HarnessOptions(a),
		Sessions: harness.Sessions{Endpoint: a.ProtoEndpoint(), Concurrency: a.Concurrency}, Repeats: a.Repeats})
}

// SeatOptions are how a sweep seats a: its endpoint (without its
// credential, which the worker adds), its concurrency and tail; retries
// are Temporal's.
func SeatOptions(a spec.Agent) seated.Options {
	o := seated.DefaultOptions(a.Name, a.ProtoEndpoint())
	o.Model, o.Concurrency, o.Retries = a.Model, a.Concurrency, 0
	if a.Seated != nil {
		o.Tail = a.Seated.TailS
	}
	return o
}

// SeatPlayHash identifies how a's seats are played (seated.PlayHash).
func SeatPlayHash(a spec.Agent) string { return seated.PlayHash(SeatOptions(a)) }

// SeatKey is the prefix of the recording of a in seat of conversation
// conv of the corpus with content hash corpusHash.
func SeatKey(a spec.Agent, corpusHash, conv string, seat int) string {
	return keys.Seat(Hash(a), corpusHash, conv, seat, SeatPlayHash(a))
}

// Seats are a's seats on a corpus with manifest m: seated.SweepSeats of
// the speakers the spec names (every speaker when it names none).
func Seats(m *corpus.Manifest, a spec.Agent) []seated.Seat {
	var speakers seated.Speakers
	if a.Seated != nil && len(a.Seated.Speakers) > 0 {
		speakers = seated.Speakers(a.Seated.Speakers)
	}
	return seated.SweepSeats(m, speakers)
}
