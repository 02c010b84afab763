// Package proto carries audio to and from a full-duplex voice agent over a
// real protocol, in real time (docs/agents.md#protocols).
//
// # Sessions
//
// Dial opens a Session with the agent at an Endpoint. Send sends 16 kHz
// PCM16 mono input in 20 ms frames, each at its slot on the session's
// Clock; Recv returns, in the order they become known, the frames of what
// a listener heard from the agent (one per 20 ms slot, silence included)
// and the provider's events (speech started or stopped, a response begun
// or done, a barge-in, an error), each with its session time. What is
// heard comes out of a playback buffer on the same clock: a piece of the
// agent's audio plays from its arrival or from the end of the piece before,
// and a barge-in drops what has not been heard. Every wait has a deadline:
// the caller's context, the endpoint's handshake timeout for each step of
// opening a session, and for duplex an idle timeout.
//
// An Endpoint holds every setting of an agent endpoint (protocol, URL,
// credential, rate, timeouts, realtime settings, limits); Endpoint.Check
// is the one check of the settings a spec or a command gives, each rule
// once, its error naming the setting as a spec does.
//
// # Playback rate
//
// A Clock runs at a rate r: session time is wall time times r. Real
// evaluations run at r = 1; tests run faster, both sides on the same
// timeline, because a server keeps time by the audio it hears (input frame
// k ends at (k+1)·20 ms), not by its own wall clock.
//
// # Time and transport in tests
//
// A Clock reads the time package, and Endpoint.Dial and Serve take any
// connection and listener: a test injects both by running its sessions
// inside a testing/synctest bubble over a Pipe, an in-memory network with
// buffers and deadlines. The bubble's fake clock then keeps every
// session's time, client and server alike, and moves only when every
// goroutine of the bubble waits, so a session plays in no wall time and
// decides, hears and times the same at any load or under the race
// detector.
//
// # Protocols
//
// A protocol is one file of client code (a dialer registered in
// protocols, and a wire that encodes input frames and reads the agent's
// messages) and one file of server code. duplex is floorbench's own: raw
// frames both ways, JSON events. realtime is the OpenAI-Realtime-style
// protocol: base64 audio at 24 kHz in JSON events, resampled at the edge.
//
// # Servers
//
// NewHandler serves a protocol to WebSocket clients, one Agent per
// connection, at most MaxSessions at once. An Agent hears one input frame
// at a time and decides when to talk and when to stop; the server turns
// its decisions into the protocol's audio and events. A malformed message
// gets an error event, then the connection is closed.
//
// # Credentials
//
// An Endpoint's Credential is a credential.Secret: it goes into a header of the
// WebSocket handshake and never into an error, a log or JSON. Errors name
// an endpoint by its URL without query or user. Every string an agent
// sends passes Endpoint.scrub (redact.Peer) where it comes in: the
// credential masked in its obvious encodings, control characters
// removed, cut short. The handshake follows no redirect (credential.NoRedirect),
// which would carry the credential to another origin.
//
// # Bounds
//
// What an agent can make a client hold is bounded by Endpoint.Limits:
// audio queued ahead of playback, output items in flight, a continuous
// channel ahead of its input, events per session and per second. Past a
// bound the session fails with an error naming it and its value.
//
// One package on purpose: both protocols (duplex,
// realtime), each with its client and its server, share the session clock,
// the frame format, the playback model and the secret handling; the client
// and the server of a protocol are tested against each other.
package proto
