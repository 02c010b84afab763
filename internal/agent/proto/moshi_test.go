package proto

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/floorbench/floorbench/internal/testenv"
)

// Opus's tolerances, which every comparison below is argued from: at
// 48 kbit/s a 20 ms frame of a 440 Hz tone decodes within a fraction of
// a dB of its level, and an onset or an end is smeared over the codec's
// window overlap, 2.5 ms (CELT's, the restricted low-delay mode's whole
// lookahead; the pre-skip a stream declares takes the delay itself out).
const (
	opusOverlap16k = opusLookahead48k * SampleRate / 48000 // 40 samples
	toneLevelDB    = 1.0
)

// tone is n samples of a 440 Hz sine of amplitude 0.25 at rate: the
// tests' speech over Opus, which removes the DC the other tests use.
func tone(n, rate int) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(0.25 * math.Sin(2*math.Pi*440*float64(i)/float64(rate)))
	}
	return x
}

// loudSpan is the first and last sample of x over 0.1 in magnitude, -1
// when none is.
func loudSpan(x []float32) (first, last int) {
	first, last = -1, -1
	for i, v := range x {
		if v > 0.1 || v < -0.1 {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	return first, last
}

// rmsDB is the level of x in dB relative to full scale.
func rmsDB(x []float32) float64 {
	var sum float64
	for _, v := range x {
		sum += float64(v) * float64(v)
	}
	return 10 * math.Log10(sum/float64(max(1, len(x)))+1e-12)
}

// moshiFake is a Moshi server written from the public reference
// (kyutai-labs/moshi: rust/protocol.md, moshi/moshi/server.py,
// rust/moshi-server/src/lm.rs and main.rs, rust/moshi-backend's
// stream_both.rs), not from floorbench's server. At /api/chat, with the
// key in kyutai-api-key (or auth_id), it sends the handshake (server.py's
// lone kind byte, or rust's two u32s), its stream's header pages and a
// metadata message, then works in 80 ms steps as Moshi does: every 1920
// samples of the client's audio decoded at 24 kHz give one page of
// 80 ms of its own audio, two 40 ms Opus packets (moshi-backend's 960
// samples at 24 kHz) laced on one page. From step talkAt it says a tone
// for talkSteps steps, with text tokens beside it; then an error message
// naming the key. What it saw wrong goes to problems.
type moshiFake struct {
	key             string
	rustHandshake   bool
	talkAt, talkFor int
	mu              sync.Mutex
	problems        []string
	heard           []float32 // the client's audio, 24 kHz
	headers         http.Header
}

func (f *moshiFake) problem(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.problems = append(f.problems, fmt.Sprintf(format, args...))
}

// fakeRate and fakeStep are Moshi's: 24 kHz, 80 ms steps.
const (
	fakeRate = 24000
	fakeStep = 1920
)

func (f *moshiFake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/api/chat" || (r.Header.Get(moshiKeyHeader) != f.key && r.URL.Query().Get("auth_id") != f.key) {
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return
	}
	f.mu.Lock()
	f.headers = r.Header.Clone()
	f.mu.Unlock()
	c, err := websocket.Accept(w, r, nil)
	if err != nil {
		return
	}
	defer c.CloseNow()
	c.SetReadLimit(1 << 20)
	ctx := r.Context()
	send := func(kind byte, payload []byte) {
		c.Write(ctx, websocket.MessageBinary, append([]byte{kind}, payload...))
	}
	if f.rustHandshake {
		send(0, make([]byte, 8))
	} else {
		send(0, nil)
	}
	enc, err := newOpusEncoder(fakeRate)
	if err != nil {
		f.problem("%v", err)
		return
	}
	ogg := oggWriter{serial: 42}
	head := append([]byte("OpusHead\x01\x01"), binary.LittleEndian.AppendUint16(nil, opusLookahead48k)...)
	head = append(binary.LittleEndian.AppendUint32(head, fakeRate), 0, 0, 0)
	tags := append([]byte("OpusTags"), 4, 0, 0, 0, 'f', 'a', 'k', 'e', 0, 0, 0, 0)
	send(1, append(ogg.page(0, 2, head), ogg.page(0, 0, tags)...))
	send(4, []byte(`{"text_temperature":0.7}`))
	in, err := newOpusStreamReader(fakeRate)
	if err != nil {
		f.problem("%v", err)
		return
	}
	voice := tone(f.talkFor*fakeStep, fakeRate)
	var pending []float32
	granule := int64(opusLookahead48k)
	for step := 0; ; {
		typ, data, err := c.Read(ctx)
		if err != nil {
			return
		}
		if typ != websocket.MessageBinary || len(data) == 0 || data[0] != 1 || !bytes.HasPrefix(data[1:], []byte("OggS")) {
			f.problem("message %.8q is not kind 1 with an Ogg page", data)
			return
		}
		x, err := in.read(data[1:])
		if err != nil {
			f.problem("the client's audio: %v", err)
			return
		}
		f.mu.Lock()
		f.heard = append(f.heard, x...)
		f.mu.Unlock()
		for pending = append(pending, x...); len(pending) >= fakeStep; step++ {
			pending = pending[fakeStep:]
			out := make([]float32, fakeStep)
			if k := step - f.talkAt; k >= 0 && k < f.talkFor {
				copy(out, voice[k*fakeStep:])
				send(2, []byte("hello"))
			}
			a, errA := enc.encode(out[:fakeStep/2])
			b, errB := enc.encode(out[fakeStep/2:])
			if errA != nil || errB != nil {
				f.problem("encoding: %v %v", errA, errB)
				return
			}
			granule += fakeStep * 48000 / fakeRate
			send(1, ogg.page(granule, 0, a, b))
			if step == f.talkAt+f.talkFor {
				send(5, []byte("overloaded, key "+f.key))
			}
		}
	}
}

// The moshi client speaks Moshi's protocol as its reference describes
// it: the key in kyutai-api-key, 20 ms Opus pages of its input that the
// server decodes at 24 kHz in line with what was sent, and the server's
// 80 ms pages of two 40 ms packets heard at 16 kHz on the server's own
// clock: its tone from the sample it put it at. Text and metadata are
// not heard; each text message is a transcript event, the error message
// an error event, the key scrubbed from it.
// Both handshakes the references send are taken.
func TestMoshiClientSpeaksMoshi(t *testing.T) {
	const key = "moshi-test-key-0123456789"
	for _, rust := range []bool{false, true} {
		t.Run(fmt.Sprintf("rust handshake %v", rust), func(t *testing.T) {
			f := &moshiFake{key: key, rustHandshake: rust, talkAt: 3, talkFor: 4}
			url := serveHandler(t, f)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			s, err := Dial(ctx, Endpoint{Protocol: MoshiName, URL: url + "/api/chat", Credential: key, Rate: testRate})
			if err != nil {
				t.Fatal(err)
			}
			input := tone(20*FrameSamples, SampleRate)
			rec := run(t, s, 60, func(k int) []float32 {
				if k >= 10 && k < 30 {
					return input[(k-10)*FrameSamples : (k-9)*FrameSamples]
				}
				return make([]float32, FrameSamples)
			}, nil)
			f.mu.Lock()
			defer f.mu.Unlock()
			for _, p := range f.problems {
				t.Error(p)
			}
			if f.headers.Get(moshiKeyHeader) != key || f.headers.Get("Authorization") != "" {
				t.Errorf("the key is not in %s alone: %v", moshiKeyHeader, f.headers)
			}
			// The input tone went out in frames 10 to 29: at 24 kHz from
			// sample 4800 to 14399, within the window overlap.
			first, last := loudSpan(f.heard)
			overlap24 := opusOverlap16k * fakeRate / SampleRate
			if abs(first-4800) > overlap24 || abs(last-14399) > overlap24 {
				t.Errorf("the server heard the input tone from %d to %d at 24 kHz, want 4800 to 14399 within %d", first, last, overlap24)
			}
			// The fake's tone fills steps 3 to 6: 16 kHz samples 3840 to
			// 8959 of its channel.
			first, last = loudSpan(rec.heard)
			if abs(first-3840) > opusOverlap16k || abs(last-8959) > opusOverlap16k {
				t.Errorf("heard the agent's tone from %d to %d, want 3840 to 8959 within %d", first, last, opusOverlap16k)
			}
			if d := rmsDB(rec.heard[4000:8800]) - rmsDB(tone(4800, SampleRate)); math.Abs(d) > toneLevelDB {
				t.Errorf("heard the agent's tone %+.2f dB off its level", d)
			}
			var errs []Event
			words := 0
			for _, o := range rec.events {
				switch e := *o.Event; {
				case e.Kind == Transcript && e.Name == "text" && e.Text == "hello":
					words++
				default:
					errs = append(errs, e)
				}
			}
			if words != f.talkFor {
				t.Errorf("%d text messages reported as the transcript, want the %d the fake sent", words, f.talkFor)
			}
			if len(errs) != 1 || errs[0].Kind != ProviderError || strings.Contains(errs[0].Message, key) || !strings.Contains(errs[0].Message, "overloaded") {
				t.Errorf("events %+v, want one error with the key scrubbed", errs)
			}
		})
	}
}

func abs(n int) int { return max(n, -n) }

// The moshi server (the reference agent's) answers each 20 ms of input
// with 20 ms of the agent's audio, which the client hears in the slot
// after: an utterance the agent starts after input frame 5 is heard from
// sample 6·320, 2.5 ms late (the server's stream declares no pre-skip),
// whole, at its level.
func TestMoshiServerIsHeardOnItsClock(t *testing.T) {
	testenv.Synctest(t, func(t *testing.T) {
		utt := tone(7*FrameSamples+100, SampleRate)
		ep := servePipe(t, MoshiName, func() (Agent, error) { return &scripted{sayAt: 5, utt: utt}, nil })
		rec := run(t, dialPipe(t, ep), 40, level(0, 0, 0), nil)
		heardOnItsClock(t, rec, utt)
	})
}

func heardOnItsClock(t *testing.T, rec recording, utt []float32) {
	first, last := loudSpan(rec.heard)
	// The listener's sample i is channel frame i/320, said during input
	// frame i/320+1: the utterance starts with frame 6 of the input's
	// clock, channel frame 5.
	start := 5*FrameSamples + opusOverlap16k
	if abs(first-start) > opusOverlap16k || abs(last-(start+len(utt)-1)) > opusOverlap16k {
		t.Errorf("heard the utterance from %d to %d, want %d to %d within %d", first, last, start, start+len(utt)-1, opusOverlap16k)
	}
	if d := rmsDB(rec.heard[first+100:last-100]) - rmsDB(utt); math.Abs(d) > toneLevelDB {
		t.Errorf("heard the utterance %+.2f dB off its level", d)
	}
}

// Every stream floorbench writes declares the encoder's true lookahead
// as its pre-skip: an impulse encoded and decoded comes back where it
// was once the pre-skip is dropped.
func TestOpusPreSkipIsTheLookahead(t *testing.T) {
	enc, err := newOpusEncoder(SampleRate)
	if err != nil {
		t.Fatal(err)
	}
	dec, err := newOpusDecoder(SampleRate)
	if err != nil {
		t.Fatal(err)
	}
	x := make([]float32, 10*FrameSamples)
	const at = 4*FrameSamples + 100
	x[at] = 0.9
	var y []float32
	for k := 0; k < len(x); k += FrameSamples {
		p, err := enc.encode(x[k : k+FrameSamples])
		if err != nil {
			t.Fatal(err)
		}
		d, err := dec.decode(p)
		if err != nil {
			t.Fatal(err)
		}
		y = append(y, d...)
	}
	peakAt := 0
	for i, v := range y {
		if math.Abs(float64(v)) > math.Abs(float64(y[peakAt])) {
			peakAt = i
		}
	}
	if got := peakAt - at; got != opusOverlap16k {
		t.Errorf("the impulse came back %d samples late, want the declared pre-skip %d", got, opusOverlap16k)
	}
}

// What a moshi peer sends wrong fails the session with one line saying
// what it was, never its content.
func TestMoshiClientRefusesBadInput(t *testing.T) {
	for _, c := range []struct {
		name string
		msg  func(page []byte) []byte
		want string
	}{
		{"kind", func([]byte) []byte { return []byte{42, 'x'} }, "a message of kind 42, not one the moshi protocol defines"},
		{"checksum", func(page []byte) []byte { page[22] ^= 1; return append([]byte{1}, page...) }, "fails its checksum"},
		{"not ogg", func([]byte) []byte { return []byte("\x01RIFF....WAVE") }, "audio that is not an Ogg page"},
		{"oversized", func([]byte) []byte { return append([]byte{2}, make([]byte, moshiReadLimit+1)...) }, "read limited at"},
		{"not utf-8", func([]byte) []byte { return []byte("\x02secret \xff\xfe") }, "a text message of 9 bytes that are not UTF-8"},
		{"text frame", nil, "a text WebSocket message (6 bytes); moshi messages are binary"},
	} {
		t.Run(c.name, func(t *testing.T) {
			url := serveHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				conn, err := websocket.Accept(w, r, nil)
				if err != nil {
					return
				}
				defer conn.CloseNow()
				ctx := r.Context()
				conn.Write(ctx, websocket.MessageBinary, []byte{0})
				ogg := oggWriter{serial: 7}
				head := append([]byte("OpusHead\x01\x01"), 0, 0, 0x80, 0x3e, 0, 0, 0, 0, 0)
				if c.msg == nil {
					conn.Write(ctx, websocket.MessageText, []byte("secret"))
				} else {
					conn.Write(ctx, websocket.MessageBinary, c.msg(ogg.page(0, oggBOS, head)))
				}
				for {
					if _, _, err := conn.Read(ctx); err != nil {
						return
					}
				}
			}))
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			s, err := Dial(ctx, Endpoint{Protocol: MoshiName, URL: url, Rate: testRate})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			go func() {
				for k := 0; s.Send(ctx, make([]float32, FrameSamples)) == nil && k < 500; k++ {
				}
			}()
			for {
				o, err := s.Recv(ctx)
				if err == nil {
					if o.Event != nil {
						t.Fatalf("an event %+v before the failure", *o.Event)
					}
					continue
				}
				if !errors.Is(err, ErrProtocol) && c.name != "oversized" || !strings.Contains(err.Error(), c.want) ||
					strings.Contains(err.Error(), "secret") || strings.Contains(err.Error(), "\n") {
					t.Errorf("%v, want one line saying %q", err, c.want)
				}
				return
			}
		})
	}
}

// The moshi server refuses what is not Moshi's with an error message
// (kind 5) saying what, then closes: a kind byte it does not know, a
// broken Ogg page, text that is not UTF-8.
func TestMoshiServerRefusesBadInput(t *testing.T) {
	for _, c := range []struct {
		name string
		msg  []byte
		want string
	}{
		{"kind", []byte{42}, "a message of kind 42"},
		{"ogg", append([]byte("\x01OggS\x01"), make([]byte, 22)...), "an Ogg page of version 1"},
		{"utf-8", []byte("\x02\xff"), "not UTF-8"},
	} {
		t.Run(c.name, func(t *testing.T) {
			url := serve(t, MoshiName, func() (Agent, error) { return &scripted{sayAt: -1}, nil })
			said, err := refused(t, url, []message{{websocket.MessageBinary, c.msg}})
			if len(said) == 0 || !bytes.Equal(said[0].data, make([]byte, 9)) {
				t.Fatalf("the server said %d messages, the first not its handshake (kind 0 and two u32 zeros)", len(said))
			}
			if websocket.CloseStatus(err) != websocket.StatusUnsupportedData {
				t.Errorf("closed with %v, want 1003", err)
			}
			var reason string
			for _, m := range said {
				if m.data[0] == moshiError {
					reason = string(m.data[1:])
				}
			}
			if !strings.Contains(reason, c.want) {
				t.Errorf("the server said %q, want %q", reason, c.want)
			}
		})
	}
}

// An Ogg stream cut anywhere across messages reads the same packets; a
// packet laced across pages comes whole.
func TestOggPagesCutAnywhere(t *testing.T) {
	w := oggWriter{serial: 9}
	long := bytes.Repeat([]byte{7}, 600)
	stream := append(w.page(0, oggBOS, []byte("a")), w.page(5, 0, []byte("bb"), long)...)
	// A packet continued on a second page: its first page ends in a
	// lacing value of 255.
	whole := w.page(6, 0, bytes.Repeat([]byte{1}, 255)) // lacing 255, 0
	first := append(append(append([]byte(nil), whole[:oggHeaderLen]...), 255), whole[oggHeaderLen+2:]...)
	first[26] = 1
	clear(first[22:26])
	binary.LittleEndian.PutUint32(first[22:], oggChecksum(first))
	stream = append(stream, first...)
	second := w.page(7, oggContinued, []byte{2, 2})
	stream = append(stream, second...)
	for cut := range len(stream) {
		var r oggReader
		a, err := r.read(stream[:cut])
		if err != nil {
			t.Fatalf("cut at %d: %v", cut, err)
		}
		b, err := r.read(stream[cut:])
		if err != nil {
			t.Fatalf("cut at %d: %v", cut, err)
		}
		got := append(a, b...)
		want := [][]byte{[]byte("a"), []byte("bb"), long, append(bytes.Repeat([]byte{1}, 255), 2, 2)}
		if len(got) != len(want) {
			t.Fatalf("cut at %d: %d packets, want %d", cut, len(got), len(want))
		}
		for i := range want {
			if !bytes.Equal(got[i], want[i]) {
				t.Fatalf("cut at %d: packet %d differs", cut, i)
			}
		}
	}
}
