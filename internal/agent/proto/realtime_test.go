package proto

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/floorbench/floorbench/internal/testenv"
)

// rawRealtime dials the reference agent's realtime server as a raw
// WebSocket client over a Pipe (beta: with the OpenAI-Beta: realtime=v1
// header), its agent scripted to say two seconds after input frame 5
// and stop when talked over, its audio sent 200 ms ahead.
func rawRealtime(t *testing.T, beta bool) *websocket.Conn {
	t.Helper()
	h, err := NewHandler(RealtimeName, func() (Agent, error) {
		return &scripted{sayAt: 5, utt: constant(0.25, 2*SampleRate), text: "Two seconds of tone.", stopOnLoud: true}, nil
	}, ServerOptions{Rate: testRate, RealtimeLead: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ep, stop := ServePipe(h, RealtimeName)
	t.Cleanup(stop)
	header := http.Header{}
	if beta {
		header.Set("OpenAI-Beta", "realtime=v1")
	}
	client := &http.Client{Transport: &http.Transport{DialContext: ep.Dial, DisableKeepAlives: true}}
	c, _, err := websocket.Dial(t.Context(), ep.URL+"?model=gpt-realtime", &websocket.DialOptions{HTTPHeader: header, HTTPClient: client})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.CloseNow() })
	return c
}

// next reads the server's next event.
func next(t *testing.T, c *websocket.Conn) rtEvent {
	t.Helper()
	typ, data, err := c.Read(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	e, err := parseRealtime(typ, data)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func sendEvent(t *testing.T, c *websocket.Conn, e string) {
	t.Helper()
	if err := c.Write(t.Context(), websocket.MessageText, []byte(e)); err != nil {
		t.Fatal(err)
	}
}

// The reference server is a realtime peer as the OpenAI reference shapes
// one, in the GA API and in the beta a client asks for with its header:
// session.created in the client's shape; session.updated echoing the
// voice, instructions, formats and turn detection set; response.cancel
// with no response running answered by an invalid_request_error
// response_cancel_not_active, the session going on; a response's output
// item and audio content part announced before its first delta, its
// words as one transcript delta before its audio, and ended in order
// (audio, transcript, content part, item, response.done with its status
// and the transcript) when the agent yields.
func TestTheRealtimeServerIsAPeerAsTheReferenceShapesIt(t *testing.T) {
	for _, beta := range []bool{false, true} {
		name, deltaName, doneName, itemAdded := "ga", "response.output_audio.delta", "response.output_audio.done", "conversation.item.added"
		transcriptDelta, transcriptDone := "response.output_audio_transcript.delta", "response.output_audio_transcript.done"
		if beta {
			name, deltaName, doneName, itemAdded = "beta", "response.audio.delta", "response.audio.done", "conversation.item.created"
			transcriptDelta, transcriptDone = "response.audio_transcript.delta", "response.audio_transcript.done"
		}
		t.Run(name, func(t *testing.T) {
			testenv.Synctest(t, func(t *testing.T) {
				c := rawRealtime(t, beta)
				created := next(t, c)
				if created.Type != "session.created" || created.Session == nil || created.Session.ga() == beta ||
					created.Session.Object != "realtime.session" || created.Session.Model != "gpt-realtime" || created.Session.voice() != realtimeDefaultVoice {
					t.Fatalf("first event %s with session %+v; want session.created of a %s realtime.session, model gpt-realtime, voice alloy", created.Type, created.Session, name)
				}
				if err := created.Session.formats(fromClient); err != nil {
					t.Error(err)
				}

				sendEvent(t, c, `{"type":"response.cancel"}`)
				if e := next(t, c); e.Type != "error" || e.Error == nil || e.Error.Type != "invalid_request_error" || e.Error.Code != "response_cancel_not_active" {
					t.Fatalf("response.cancel with no response: %s %+v; want an invalid_request_error response_cancel_not_active", e.Type, e.Error)
				}

				update := RealtimeOptions{API: "ga", Voice: "verse", Instructions: "be brief", VAD: RealtimeVAD{SilenceDurationMs: ptr(300)}}
				if beta {
					update.API = "beta"
				}
				data, _ := json.Marshal(update.sessionUpdate())
				sendEvent(t, c, string(data))
				updated := next(t, c)
				if updated.Type != "session.updated" || updated.Session == nil {
					t.Fatalf("session.update answered with %s", updated.Type)
				}
				s := updated.Session
				td, err := s.turnDetection()
				if err != nil || s.ga() == beta || s.voice() != "verse" || s.Instructions != "be brief" || td.Type != realtimeVAD ||
					td.SilenceDurationMs == nil || *td.SilenceDurationMs != 300 || !td.interrupts() {
					t.Errorf("session.updated %+v (turn detection %+v, %v); want the %s shape with voice verse, instructions, server_vad of 300 ms silence that interrupts", *s, td, err, name)
				}
				if err := s.formats(fromClient); err != nil || (beta && s.InputAudioFormat != realtimeBeta) || (!beta && s.Audio.Input.Format.Type != realtimeGAType) {
					t.Errorf("session.updated declares formats %+v %+v (%v); want PCM16 at 24 kHz stated", s.InputAudioFormat, s.Audio, err)
				}

				// Silence, then loud input while the agent talks: it yields.
				go func() {
					for k := range 60 {
						v := float32(0)
						if k >= 30 && k < 40 {
							v = 0.5
						}
						x := constant(v, FrameSamples*realtimeRate/SampleRate)
						msg, _ := json.Marshal(rtEvent{Type: "input_audio_buffer.append", Audio: encodeAudio(x)})
						if c.Write(context.Background(), websocket.MessageText, msg) != nil {
							return
						}
					}
				}()
				var types []string
				var events []rtEvent
				for {
					e := next(t, c)
					if e.Type != deltaName || len(types) == 0 || types[len(types)-1] != deltaName {
						types = append(types, e.Type)
					}
					events = append(events, e)
					if e.Type == "response.done" {
						break
					}
				}
				want := []string{"response.created", "response.output_item.added", itemAdded, "response.content_part.added", transcriptDelta, deltaName,
					"input_audio_buffer.speech_started", doneName, transcriptDone, "response.content_part.done", "response.output_item.done"}
				if !beta {
					want = append(want, "conversation.item.done")
				}
				want = append(want, "response.done")
				if !slices.Equal(types, want) {
					t.Errorf("a yielded response's events (deltas as one):\n%v\nwant\n%v", types, want)
				}
				item := ""
				for _, e := range events {
					switch {
					case e.Type == "response.output_item.added" && e.Item != nil:
						item = e.Item.ID
					case (e.Type == deltaName || e.Type == transcriptDelta || e.Type == transcriptDone) && (e.ItemID != item || item == "" || e.ResponseID != "resp_1"):
						t.Fatalf("a %s of item %q, response %q; the announced item is %q of resp_1", e.Type, e.ItemID, e.ResponseID, item)
					case e.Type == transcriptDelta && e.Delta != "Two seconds of tone.", e.Type == transcriptDone && e.Transcript != "Two seconds of tone.":
						t.Errorf("%s %+v; want the agent's words whole", e.Type, e)
					}
				}
				done := events[len(events)-1].Response
				if done == nil || done.Status != "cancelled" || done.StatusDetails == nil || done.StatusDetails.Reason != "turn_detected" ||
					len(done.Output) != 1 || done.Output[0].ID != item || done.Output[0].Status != "incomplete" ||
					len(done.Output[0].Content) != 1 || done.Output[0].Content[0].Transcript != "Two seconds of tone." {
					t.Errorf("response.done %+v; want cancelled (turn_detected) with its incomplete item %s and its transcript", done, item)
				}
			})
		})
	}
}

// A realtime client barging in sends response.cancel only to an endpoint
// that does not cancel the response itself: one whose session.updated
// says its turn detection's interrupt_response is false. Under server_vad
// as OpenAI's endpoint runs it (interrupt_response absent or true) the
// endpoint has cancelled already, and a cancel would only earn an error.
// A cancel names the response running, and none goes out once the
// response has ended (its audio still playing): a cancel of a response
// that is not running is answered with an error too.
func TestTheRealtimeClientCancelsOnlyWhatTheEndpointLeavesRunning(t *testing.T) {
	for _, c := range []struct {
		turnDetection string
		ended         bool // response.done before speech_started
		wantCancel    bool
	}{
		{`{"type":"server_vad"}`, false, false},
		{`{"type":"server_vad","interrupt_response":true}`, false, false},
		{`{"type":"server_vad","interrupt_response":false}`, false, true},
		{`{"type":"server_vad","interrupt_response":false}`, true, false},
	} {
		t.Run(fmt.Sprintf("%s ended %v", c.turnDetection, c.ended), func(t *testing.T) {
			testenv.Synctest(t, func(t *testing.T) {
				asked := make(chan []rtEvent, 1)
				fake := fakeRealtime(c.turnDetection, func(ctx context.Context, conn *websocket.Conn, say func(string)) {
					say(`{"type":"response.created","response":{"id":"resp_1","status":"in_progress"}}`)
					say(`{"type":"response.audio.delta","response_id":"resp_1","item_id":"item_1","delta":"` + encodeAudio(constant(0.25, realtimeRate)) + `"}`)
					if c.ended {
						say(`{"type":"response.audio.done","response_id":"resp_1","item_id":"item_1"}`)
						say(`{"type":"response.done","response":{"id":"resp_1","status":"completed"}}`)
					}
					say(`{"type":"input_audio_buffer.speech_started","audio_start_ms":0}`)
					var events []rtEvent
					for {
						_, data, err := conn.Read(ctx)
						if err != nil {
							return
						}
						var e rtEvent
						json.Unmarshal(data, &e)
						events = append(events, e)
						if e.Type == "conversation.item.truncate" {
							asked <- events
							conn.Close(websocket.StatusNormalClosure, "")
							return
						}
					}
				})
				ep, stop := ServePipe(fake, RealtimeName)
				defer stop()
				sess := dialPipe(t, ep)
				defer sess.Close()
				for {
					o, err := sess.Recv(t.Context())
					if err != nil {
						t.Fatal(err)
					}
					if o.Event != nil && o.Event.Kind == BargeIn {
						break
					}
				}
				events := <-asked
				var types []string
				for _, e := range events {
					types = append(types, e.Type)
					if e.Type == "response.cancel" && e.ResponseID != "resp_1" {
						t.Errorf("the client cancelled response %q; the one running is resp_1", e.ResponseID)
					}
				}
				if got := slices.Contains(types, "response.cancel"); got != c.wantCancel {
					t.Errorf("the client sent %v after speech_started; response.cancel wanted: %v", types, c.wantCancel)
				}
			})
		})
	}
}

// A response.cancel naming a response that is not the one running is
// answered as one with no response running: an invalid_request_error
// response_cancel_not_active, the running response going on; a cancel
// naming it (or none) cancels it.
func TestTheRealtimeServerCancelsOnlyTheResponseNamed(t *testing.T) {
	testenv.Synctest(t, func(t *testing.T) {
		c := rawRealtime(t, false)
		next(t, c) // session.created
		// Ten frames of silence: the agent starts its response at the
		// fifth and, hearing no more, holds it running.
		for range 10 {
			sendEvent(t, c, `{"type":"input_audio_buffer.append","audio":"`+encodeAudio(constant(0, FrameSamples*realtimeRate/SampleRate))+`"}`)
		}
		for e := next(t, c); e.Type != "response.created"; e = next(t, c) {
		}
		// errorOrDone is the next error or response.done: what the
		// response sends meanwhile (its announcements, its audio) is
		// skipped.
		errorOrDone := func() rtEvent {
			for {
				if e := next(t, c); e.Type == "error" || e.Type == "response.done" {
					return e
				}
			}
		}
		for _, other := range []string{"resp_0", "resp_2"} {
			sendEvent(t, c, `{"type":"response.cancel","response_id":"`+other+`"}`)
			if e := errorOrDone(); e.Type != "error" || e.Error == nil || e.Error.Type != "invalid_request_error" || e.Error.Code != "response_cancel_not_active" {
				t.Fatalf("response.cancel of %s while resp_1 runs: %s %+v; want an invalid_request_error response_cancel_not_active", other, e.Type, e.Error)
			}
		}
		sendEvent(t, c, `{"type":"response.cancel","response_id":"resp_1"}`)
		for {
			e := errorOrDone()
			if e.Type == "error" {
				t.Fatalf("response.cancel of the running response: error %+v", e.Error)
			}
			if e.Type == "response.done" {
				if e.Response == nil || e.Response.ID != "resp_1" || e.Response.Status != "cancelled" || e.Response.StatusDetails == nil ||
					e.Response.StatusDetails.Reason != "client_cancelled" {
					t.Errorf("response.done %+v; want resp_1 cancelled (client_cancelled)", e.Response)
				}
				return
			}
		}
	})
}
