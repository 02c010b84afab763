package proto

import (
	"encoding/json"
	"math"
	"testing"
	"unicode/utf8"

	"github.com/coder/websocket"
)

// Whatever text a duplex peer sends, parsing it gives an event or an error,
// never a panic, and a hello that passes checkHello declares exactly the
// protocol's format.
func FuzzParseDuplex(f *testing.F) {
	hello, _ := json.Marshal(duplexHello("agent"))
	for _, seed := range []string{string(hello), `{"type":"speech_started","t_ms":120}`, `{"type":"response_done","status":"cancelled"}`,
		`{"type":"error","code":"x","message":"y"}`, `{"type":""}`, `[]`, `{"type":1}`, `{"type":"hello","sample_rate":"16000"}`, "\x00"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := parseDuplex(data)
		if err != nil {
			return
		}
		if m.Type == "" {
			t.Fatal("a message without a type parsed")
		}
		if e, ok := duplexEvent(m, fromClient); ok && e.Kind != EventKind(m.Type) {
			t.Fatalf("event %q from a message of type %q", e.Kind, m.Type)
		}
		if checkHello(m, fromClient) == nil && (m.SampleRate != SampleRate || m.FrameMs != duplexFrameMs || m.Encoding != duplexEncoding) {
			t.Fatalf("a hello of %+v passed", m)
		}
	})
}

// Whatever a realtime peer sends, parsing it and reading its session's
// formats, turn detection and audio never panics, and a session whose
// formats pass declares nothing but PCM16 at 24 kHz.
func FuzzParseRealtime(f *testing.F) {
	for _, seed := range []string{
		`{"type":"session.updated","session":{"input_audio_format":"pcm16","output_audio_format":"pcm16","turn_detection":{"type":"server_vad"}}}`,
		`{"type":"session.updated","session":{"type":"realtime","audio":{"input":{"format":{"type":"audio/pcm","rate":24000},"turn_detection":null}}}}`,
		`{"type":"response.audio.delta","item_id":"item_1","delta":"AAABAA=="}`,
		`{"type":"input_audio_buffer.speech_started","audio_start_ms":420,"item_id":"item_in_1"}`,
		`{"type":"response.done","response":{"id":"resp_1","status":"cancelled","status_details":{"type":"cancelled","reason":"turn_detected"}}}`,
		`{"type":"error","error":{"code":"x","message":"y"}}`, `{"type":"session.update","session":{"turn_detection":7}}`, `{}`, `null`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := parseRealtime(websocket.MessageText, data)
		if err != nil {
			return
		}
		if e.Session != nil {
			e.Session.turnDetection()
			if e.Session.formats(fromClient) == nil {
				for _, v := range []string{e.Session.InputAudioFormat, e.Session.OutputAudioFormat} {
					if v != "" && v != realtimeBeta {
						t.Fatalf("format %q passed", v)
					}
				}
			}
		}
		for _, field := range []string{e.Audio, e.Delta} {
			if x, err := decodeAudio("audio", field); err == nil && len(x) > len(field) {
				t.Fatalf("%d base64 characters decoded to %d samples", len(field), len(x))
			}
		}
	})
}

// PCM16 decodes any even number of bytes into samples in [-1, 1) that
// encode back to the same bytes.
func FuzzPCM16RoundTrip(f *testing.F) {
	f.Add([]byte{0, 0, 0xff, 0x7f, 0, 0x80})
	f.Add([]byte{1})
	f.Fuzz(func(t *testing.T, data []byte) {
		x, err := decodePCM16(data)
		if (err != nil) != (len(data)%2 != 0) {
			t.Fatalf("%d bytes: error %v", len(data), err)
		}
		if err != nil {
			return
		}
		for _, v := range x {
			if v < -1 || v >= 1 || math.IsNaN(float64(v)) {
				t.Fatalf("sample %v", v)
			}
		}
		if back := encodePCM16(x); string(back) != string(data) {
			t.Fatalf("%x came back as %x", data, back)
		}
	})
}

// Whatever bytes a moshi peer sends, parsing the message and reading its
// audio as an Ogg Opus stream gives a message, samples or one error,
// never a panic: a message that parses is of a kind the protocol
// defines, and its text is UTF-8; the stream decodes to whole samples in
// range, no more than 120 ms per packet.
func FuzzParseMoshi(f *testing.F) {
	w, err := newOpusStreamWriter(1, SampleRate, opusLookahead48k)
	if err != nil {
		f.Fatal(err)
	}
	page, err := w.page(make([]float32, FrameSamples))
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range [][]byte{{0}, make([]byte, 9), {0, 0, 0}, append([]byte{1}, w.headers()...), append([]byte{1}, page...),
		[]byte("\x02 hello"), []byte("\x03\x01"), []byte("\x04{\"a\":1}"), []byte("\x05overloaded"), {6}, []byte("\x07\x05hi"), {42}, {2, 0xff}, nil} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := parseMoshi(websocket.MessageBinary, data)
		if err != nil {
			return
		}
		if len(data) > 0 && (m.kind > moshiCodes || (m.kind == moshiText || m.kind == moshiError) && !utf8.Valid(m.payload)) {
			t.Fatalf("kind %d with %d bytes parsed", m.kind, len(m.payload))
		}
		if m.kind != moshiAudio {
			return
		}
		r, err := newOpusStreamReader(SampleRate)
		if err != nil {
			t.Fatal(err)
		}
		x, err := r.read(m.payload)
		if err != nil {
			return
		}
		if len(x) > (r.packets+1)*SampleRate*120/1000 {
			t.Fatalf("%d packets decoded to %d samples", r.packets, len(x))
		}
		for _, v := range x {
			if math.IsNaN(float64(v)) || v < -2 || v > 2 {
				t.Fatalf("sample %v", v)
			}
		}
	})
}
