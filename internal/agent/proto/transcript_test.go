package proto

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/coder/websocket"

	"github.com/floorbench/floorbench/internal/credential"
	"github.com/floorbench/floorbench/internal/redact"
	"github.com/floorbench/floorbench/internal/testenv"
)

// The reference server sends the words its agent says where its protocol
// carries a transcript beside the audio, and the client reports each
// with the provider's wire name, its text scrubbed of the credential and
// cut to redact.MaxPeerRunes (and its "..."): realtime's transcript delta and done (in
// the API's shape), gemini-live's outputTranscription (its client asks
// for it in setup), moshi's text message. duplex carries none.
func TestTheAgentsWordsAreReportedAsItsTranscript(t *testing.T) {
	const key = credential.Secret("sk-transcript-key-0123456789")
	words := "Sure, " + string(key) + " " + strings.Repeat("and more ", 40)
	for _, c := range []struct {
		name     string
		protocol string
		api      string
		want     []string // the transcript events' names, in order
	}{
		{"realtime beta", RealtimeName, "beta", []string{"response.audio_transcript.delta", "response.audio_transcript.done"}},
		{"realtime ga", RealtimeName, "ga", []string{"response.output_audio_transcript.delta", "response.output_audio_transcript.done"}},
		{"gemini-live", GeminiLiveName, "", []string{"serverContent.outputTranscription"}},
		{"moshi", MoshiName, "", []string{"text"}},
		{"duplex", DuplexName, "", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			testenv.Synctest(t, func(t *testing.T) {
				ep := servePipe(t, c.protocol, func() (Agent, error) {
					return &scripted{sayAt: 3, utt: constant(0.25, SampleRate/2), text: words}, nil
				})
				ep.Credential, ep.Realtime.API = key, c.api
				s := dialPipe(t, ep)
				defer s.Close()
				ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
				defer cancel()
				go func() {
					for k := 0; k < 100 && s.Send(ctx, make([]float32, FrameSamples)) == nil; k++ {
					}
				}()
				var got []string
				for heard := 0; heard < 80; {
					o, err := s.Recv(ctx)
					if err != nil {
						t.Fatal(err)
					}
					if o.Event == nil {
						heard++
						continue
					}
					if e := o.Event; e.Kind == Transcript {
						got = append(got, e.Name)
						if strings.Contains(e.Text, string(key)) || !strings.HasPrefix(e.Text, "Sure, ") ||
							utf8.RuneCountInString(e.Text) > redact.MaxPeerOutRunes {
							t.Errorf("%s: text %q; want the words, the key masked, at most %d characters", e.Name, e.Text, redact.MaxPeerOutRunes)
						}
					}
				}
				if strings.Join(got, " ") != strings.Join(c.want, " ") {
					t.Errorf("transcript events %q, want %q", got, c.want)
				}
			})
		})
	}
}

// An endpoint's transcription of the client's audio (the session asked
// for it in its own settings; floorbench's client does not) is reported
// as input_transcript with its wire name, delta or completed, scrubbed.
func TestTheRealtimeClientReportsTheInputTranscription(t *testing.T) {
	const key = credential.Secret("sk-input-transcript-key-0123")
	testenv.Synctest(t, func(t *testing.T) {
		fake := fakeRealtime(`{"type":"server_vad"}`, func(ctx context.Context, conn *websocket.Conn, say func(string)) {
			say(`{"type":"conversation.item.input_audio_transcription.delta","item_id":"item_in_1","content_index":0,"delta":"What is"}`)
			say(`{"type":"conversation.item.input_audio_transcription.completed","item_id":"item_in_1","content_index":0,"transcript":"What is ` + string(key) + `?"}`)
			for {
				if _, _, err := conn.Read(ctx); err != nil {
					return
				}
			}
		})
		ep, stop := ServePipe(fake, RealtimeName)
		defer stop()
		ep.Credential = key
		s := dialPipe(t, ep)
		defer s.Close()
		var got []Event
		for len(got) < 2 {
			o, err := s.Recv(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if o.Event != nil {
				got = append(got, *o.Event)
			}
		}
		want := []Event{
			{Kind: InputTranscript, Name: "conversation.item.input_audio_transcription.delta", AgentMs: -1, Text: "What is"},
			{Kind: InputTranscript, Name: "conversation.item.input_audio_transcription.completed", AgentMs: -1, Text: "What is " + redact.Masked + "?"},
		}
		if !slices.Equal(got, want) {
			t.Errorf("events %+v, want %+v", got, want)
		}
	})
}
