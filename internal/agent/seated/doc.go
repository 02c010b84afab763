// Package seated seats a full-duplex voice agent in a native corpus's
// conversations, as TurnBench seats Gemini Live and Moshi, and reads its
// decisions off its output audio as predictions of the scoring protocol
// (docs/agents.md#seated-agents).
//
// # Sessions
//
// For each conversation and each speaker k the agent stands in for (a
// seat), Run streams the sum of the other channels (Mix; nothing of
// channel k) to the agent over a protocol session in real time, one 20 ms
// frame per slot, then a short tail of silence, and keeps what a listener
// heard from the agent on the same clock: sessions/<conv>--seat<k>/ holds
// session.json (Recording) and output.wav. Sessions run at most
// Options.Concurrency at once; each is played by harness.PlaySession, with
// the deadline every session has (its length and the endpoint's handshake
// timeout); a failed session is retried, then recorded with its error. A seat already recorded is not played again, so a stopped run
// resumes, and predictions can always be derived again without the agent.
//
// # Predictions
//
// Predict reads the agent's speech onsets off output.wav with the scorer's
// VAD (agent.VAD), never from labels or events it emits. An onset of the
// agent in seat k is an EOT prediction for every other speaker ("you have
// finished; I am taking the floor"): the matching scores it only near
// their anchors and negative spans. An onset while the others were
// speaking (the rms baseline's voice activity on the mix the agent heard)
// is also an INT prediction for speaker k: the agent barging in. Onsets
// from several seats of one conversation are pooled per speaker and task
// and thinned by the commit rule's refractory. The result is a submission
// (score.Submission) per split, scored by the same protocol as any
// detector; a seated agent has no threshold: its operating point is what
// it does ("as it behaves").
package seated
