package keys

import (
	"fmt"

	"github.com/floorbench/floorbench/internal/digest"
)

// The prefixes of agent evaluations (docs/architecture.md#store-layout).
const (
	Scenarios    = "scenarios/"          // one agent scenario set per content hash
	Trials       = "trials/"             // one trial recording per agent, scenario, repeat and harness
	AgentResults = "agent-results/"      // one agent's scores on one scenario set
	Seats        = "seats/"              // one seated session per agent, corpus, conversation, seat and player
	SeatedEvals  = "seated-evaluations/" // one seated agent's evaluation on one corpus
)

// ScenarioSet is the hash of a generated scenario set: what decides its
// bytes, the preset, the seed, the scenario writer's version and the
// generator's, and not the binary's revision.
func ScenarioSet(preset string, seed uint64, writer, generator int) string {
	return digest.Identity(fmt.Appendf(nil, "agent-scenarios\x00%s\x00%d\x00%d\x00%d", preset, seed, writer, generator))
}

// ScenarioSetPrefix is the prefix of the scenario set with the given hash.
func ScenarioSetPrefix(hash string) string { return Scenarios + hash }

// Agent is the hash of an agent's identity (what can change what it does
// in a trial), hashed as JSON.
func Agent(identity any) string { return hashJSON(identity) }

// Trial is the prefix of one trial's recording (recording.json,
// input.wav, output.wav): the agent's identity hash, the scenario's
// content hash, the repeat, and the hash of how the harness played it
// (its version and options).
func Trial(agentHash, scenarioHash string, repeat int, harness string) string {
	return fmt.Sprintf("%s%s/%s/r%d-%s", Trials, agentHash, scenarioHash, repeat, harness)
}

// AgentResult is where an agent's scores on a scenario set are stored;
// identity is everything else that decides them (repeats, harness,
// scoring version and parameters), hashed as JSON.
func AgentResult(agentHash, setHash string, identity any) string {
	return fmt.Sprintf("%s%s/%s/%s.json", AgentResults, agentHash, setHash, hashJSON(identity))
}

// Seat is the prefix of one seated session's recording (session.json,
// output.wav): the agent's identity hash, the corpus's content hash, the
// conversation, the seat (the speaker the agent stood in for) and the
// hash of how the session was played (its version and options).
func Seat(agentHash, corpusHash, conv string, seat int, player string) string {
	return fmt.Sprintf("%s%s/%s/%s/seat%d-%s", Seats, agentHash, corpusHash, conv, seat, player)
}

// SeatedEvaluation is where a seated agent's evaluation on a corpus is
// stored; identity is everything else that decides it (seats, player,
// prediction and protocol parameters, bootstrap), hashed as JSON.
func SeatedEvaluation(agentHash, corpusHash string, identity any) string {
	return fmt.Sprintf("%s%s/%s/%s.json", SeatedEvals, agentHash, corpusHash, hashJSON(identity))
}
