package proto

import (
	"slices"
	"testing"

	"github.com/floorbench/floorbench/internal/testenv"
)

// The agent's audio is heard whole and in order over both protocols: the
// listener hears every sample of an utterance the agent says to the end,
// and the agent is told, frame by frame, what it said.
func TestAnUtteranceIsHeardWhole(t *testing.T) {
	for _, protocol := range Protocols() {
		t.Run(protocol, func(t *testing.T) {
			skipLossy(t, protocol)
			testenv.Synctest(t, func(t *testing.T) {
				utt := constant(0.25, 7*FrameSamples+100)
				agent := &scripted{sayAt: 5, utt: utt}
				ep := servePipe(t, protocol, func() (Agent, error) { return agent, nil })
				rec := run(t, dialPipe(t, ep), 40, level(0, 0, 0), responseHeard(leadOf(protocol)))
				if got := count(rec.heard, 0.25); got != len(utt) {
					t.Errorf("heard %d samples of the utterance, want %d", got, len(utt))
				}
				if got := count(agent.own, 0.25); got != len(utt) {
					t.Errorf("the agent was told it said %d samples, want %d", got, len(utt))
				}
				want := []EventKind{ResponseStarted, ResponseDone}
				if !slices.Equal(rec.kinds(), want) {
					t.Errorf("events %v, want %v", rec.kinds(), want)
				}
				if e := rec.event(t, ResponseDone); e.Status != "completed" {
					t.Errorf("response_done status %q, want completed", e.Status)
				}
			})
		})
	}
}

// An agent that stops when talked over is heard up to its stop and no
// further, over every protocol; over realtime and gemini-live the client itself drops the
// audio it holds ahead and tells the agent how much was heard, so what is
// recorded is what a listener heard (the response itself completed: all
// its audio had been sent). Both protocols see the same
// decisions at the same agent times.
func TestAStopIsHeardWhereTheAgentStops(t *testing.T) {
	stops := map[string]Event{}
	for _, protocol := range Protocols() {
		t.Run(protocol, func(t *testing.T) {
			skipLossy(t, protocol)
			testenv.Synctest(t, func(t *testing.T) {
				utt := constant(0.25, 10*SampleRate)
				ep := servePipe(t, protocol, func() (Agent, error) {
					return &scripted{sayAt: 5, utt: utt, stopOnLoud: true}, nil
				})
				rec := run(t, dialPipe(t, ep), 60, level(0.5, 20, 30), responseHeard(leadOf(protocol)))
				heard := count(rec.heard, 0.25)
				if heard == 0 || heard >= len(utt) {
					t.Fatalf("heard %d samples of a %d-sample utterance cut by a stop", heard, len(utt))
				}
				if protocol == GeminiLiveName {
					// The Live API announces no speech start, only that the
					// model was interrupted; the client stops playback then.
					b := rec.event(t, BargeIn)
					if d := int(b.PlayedMs)*SampleRate/1000 - heard; d < -SampleRate/1000 || d > SampleRate/1000 {
						t.Errorf("the client reported %d ms played but %d samples were heard", b.PlayedMs, heard)
					}
					if e := rec.event(t, ResponseDone); e.Status != "interrupted" {
						t.Errorf("response_done status %q, want interrupted", e.Status)
					}
					return
				}
				started := rec.event(t, SpeechStarted)
				if started.AgentMs != 21*20 {
					t.Errorf("speech_started at %d ms of the agent's time, want %d (after input frame 20)", started.AgentMs, 21*20)
				}
				switch protocol {
				case DuplexName:
					if e := rec.event(t, ResponseDone); e.Status != "cancelled" {
						t.Errorf("response_done status %q, want cancelled", e.Status)
					}
				case RealtimeName:
					// The server sent the whole utterance ahead, so its
					// response completed; the client stopped the playback.
					b := rec.event(t, BargeIn)
					if d := int(b.PlayedMs)*SampleRate/1000 - heard; d < -SampleRate/1000 || d > SampleRate/1000 {
						t.Errorf("the client truncated the item at %d ms but %d samples were heard", b.PlayedMs, heard)
					}
					for _, o := range rec.events {
						if o.Event.Kind == ProviderError {
							t.Errorf("the agent answered the barge-in with an error: %+v", *o.Event)
						}
					}
				}
				started.Name = "" // each protocol names it its own way
				stops[protocol] = started
			})
		})
	}
	if stops[DuplexName] != stops[RealtimeName] {
		t.Errorf("the same agent on the same input stopped differently: duplex %+v, realtime %+v", stops[DuplexName], stops[RealtimeName])
	}
}

// The realtime client and server speak the GA shape too (type realtime,
// formats under audio, response.output_audio.* events): the utterance is
// heard whole.
func TestRealtimeInTheGAShape(t *testing.T) {
	testenv.Synctest(t, func(t *testing.T) {
		utt := constant(0.25, 7*FrameSamples+100)
		ep := servePipe(t, RealtimeName, func() (Agent, error) { return &scripted{sayAt: 5, utt: utt}, nil })
		ep.Realtime = RealtimeOptions{API: "ga", Model: "m", Voice: "v", Instructions: "be brief"}
		rec := run(t, dialPipe(t, ep), 40, level(0, 0, 0), responseHeard(testLead))
		if got := count(rec.heard, 0.25); got != len(utt) {
			t.Errorf("heard %d samples of the utterance, want %d", got, len(utt))
		}
	})
}
