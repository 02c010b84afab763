package proto

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/coder/websocket"
)

// A duplex client with nothing but a WebSocket library
// (docs/agents.md#duplex): say hello, read the agent's hello, then send one
// 20 ms frame of PCM16 every 20 ms and read the agent's frames and events.
func Example_duplexClient() {
	url := exampleAgent() // an agent that answers after the fifth frame

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, _, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		panic(err)
	}
	defer conn.CloseNow()
	hello := `{"type":"hello","protocol":"floorbench-duplex","version":1,` +
		`"sample_rate":16000,"channels":1,"encoding":"pcm_s16le","frame_ms":20}`
	conn.Write(ctx, websocket.MessageText, []byte(hello))
	_, reply, err := conn.Read(ctx) // the agent's hello, or an error event
	if err != nil {
		panic(err)
	}
	var agent struct {
		Type       string `json:"type"`
		SampleRate int    `json:"sample_rate"`
	}
	json.Unmarshal(reply, &agent)
	fmt.Println("agent says", agent.Type, "at", agent.SampleRate, "Hz")

	var events []string
	heard := make(chan int)
	go func() { // the agent's frames (640 bytes each) and events (JSON)
		n := 0
		defer func() { heard <- n }()
		for n < 25 {
			typ, data, err := conn.Read(ctx)
			if err != nil {
				return
			}
			if typ == websocket.MessageBinary {
				n++ // data: 320 samples of PCM16 LE, heard now
				continue
			}
			var e struct{ Type, Status string }
			json.Unmarshal(data, &e)
			events = append(events, strings.TrimSpace(e.Type+" "+e.Status))
		}
	}()
	silence := make([]byte, 640) // 320 samples of PCM16 LE: 20 ms at 16 kHz
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for range 25 {
		<-tick.C
		conn.Write(ctx, websocket.MessageBinary, silence)
	}
	fmt.Println(<-heard, "frames heard") // one for every frame sent
	conn.Close(websocket.StatusNormalClosure, "")
	fmt.Println(strings.Join(events, "\n"))
	// Output:
	// agent says hello at 16000 Hz
	// 25 frames heard
	// response_started
	// response_done completed
}

// exampleAgent serves an agent that says 100 ms of tone after the fifth
// input frame, and returns its URL.
func exampleAgent() string {
	h, _ := NewHandler(DuplexName, func() (Agent, error) {
		return &scripted{sayAt: 4, utt: constant(0.25, 5*FrameSamples)}, nil
	}, ServerOptions{})
	l := mustListen()
	go Serve(context.Background(), l, h)
	return "ws://" + l.Addr().String()
}
