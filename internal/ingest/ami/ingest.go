package ami

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/floorbench/floorbench/internal/audio"
	"github.com/floorbench/floorbench/internal/corpus"
	"github.com/floorbench/floorbench/internal/digest"
	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/names"
	"github.com/floorbench/floorbench/internal/redact"
)

// Options is what `corpus ingest ami` asks for.
type Options struct {
	NXT      string // the NXT annotations folder (words/, segments/, dialogueActs/, ontologies/)
	Audio    string // the headset audio folder
	Meetings string // the meeting list file
	Out      string
	Split    string // the split of meetings the list gives none (default test)
	Force    bool
	Rules    floor.AMIRules // zero: floor.DefaultAMIRules
	Limits   limits.Limits  // bound the files read; zero: limits.Default
}

// MeetingReport is what the floor rules derived for one meeting.
type MeetingReport struct {
	Meeting        string   `json:"meeting"`
	ID             string   `json:"id"`
	Split          string   `json:"split"`
	Channels       []string `json:"channels"`
	SilentChannels []string `json:"silent_channels,omitempty"`
	Duration       float64  `json:"duration_s"`
	Counts
}

// Counts are the derived counts docs/protocol.md#ami asks to report.
type Counts struct {
	Words           int `json:"words"`
	WordsDropped    int `json:"words_dropped"`
	Segments        int `json:"segments"`
	SegmentsOverlap int `json:"segments_overlapping"`
	DABackchannels  int `json:"da_backchannels"`
	Turns           int `json:"turns"`
	Yielded         int `json:"yielded"`
	InterruptedEnds int `json:"interrupted"`
	Holds           int `json:"holds"`
	Backchannels    int `json:"backchannels"`
	Interruptions   int `json:"interruptions"`
	Attempts        int `json:"attempts"`
	NonFloorTaking  int `json:"non_floor_taking"`
	NonContent      int `json:"non_content"`
	EventsExcluded  int `json:"events_excluded"` // events of silent channels
}

// Report is an ingest's per-meeting and total counts.
type Report struct {
	Meetings []MeetingReport `json:"meetings"`
	Total    Counts          `json:"total"`
}

// IngestVersion is the version of this ingester: bump it with any change
// that changes a byte of an ingested corpus, and only then. The manifest
// records it (corpus.Writer), so the corpus's hash, and with it every
// track and evaluation keyed by that hash, changes exactly when it does.
const IngestVersion = 1

// meetingID is what a meeting list may name: AMI ids such as ES2002a or
// IB4001, never a path.
var meetingID = names.MustForm(`^[A-Za-z0-9][A-Za-z0-9_-]*$`, 64)

// amiListEntry is one line of a meeting list.
type amiListEntry struct {
	Meeting, Split string
}

// readMeetingList reads a meeting list: one AMI meeting id a line, with an
// optional second column dev or test; blank lines and # comments are
// skipped. defaultSplit applies where the line gives none.
func readMeetingList(path, defaultSplit string, lim limits.Limits) ([]amiListEntry, error) {
	data, err := lim.ReadInput(path)
	if err != nil {
		return nil, err
	}
	var out []amiListEntry
	seen := map[string]bool{}
	for i, line := range strings.Split(string(data), "\n") {
		line, _, _ = strings.Cut(line, "#")
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		e := amiListEntry{Meeting: f[0], Split: defaultSplit}
		if len(f) > 2 {
			return nil, fmt.Errorf("%s:%d: want a meeting id and an optional split", path, i+1)
		}
		if len(f) == 2 {
			e.Split = f[1]
		}
		if !meetingID.Match(e.Meeting) {
			return nil, fmt.Errorf("%s:%d: meeting id %s: want letters, digits, - and _ (an AMI id such as ES2002a)", path, i+1, redact.Name(e.Meeting))
		}
		if e.Split != "dev" && e.Split != "test" {
			return nil, fmt.Errorf("%s:%d: split %s (want dev or test)", path, i+1, redact.Name(e.Split))
		}
		id := strings.ToLower(e.Meeting)
		if seen[id] {
			return nil, fmt.Errorf("%s:%d: meeting %s listed twice", path, i+1, e.Meeting)
		}
		seen[id] = true
		out = append(out, e)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no meetings listed", path)
	}
	return out, nil
}

// InteractionType is the interaction type of an AMI meeting: "scenario"
// for the design-team role plays (ids ES, IS, TS), "non-scenario" for the
// naturally occurring meetings (EN, IB, IN and any other prefix).
func InteractionType(meeting string) string {
	switch strings.ToUpper(meeting[:min(2, len(meeting))]) {
	case "ES", "IS", "TS":
		return "scenario"
	}
	return "non-scenario"
}

// Ingest writes a native corpus of kind ami from AMI's NXT annotations
// and headset audio: one conversation per listed meeting, its id the
// meeting id in lower case. Everything is written into a temporary folder
// beside Out that is renamed into place at the end, so a failure leaves
// nothing at Out. Output is byte-identical for the same inputs and binary.
func Ingest(ctx context.Context, o Options) (*Report, error) {
	rules := o.Rules
	if rules == (floor.AMIRules{}) {
		rules = floor.DefaultAMIRules
	}
	if o.Split == "" {
		o.Split = "test"
	}
	o.Limits = o.Limits.OrDefault()
	list, err := readMeetingList(o.Meetings, o.Split, o.Limits)
	if err != nil {
		return nil, err
	}
	st, err := corpus.Stage(o.Out, o.Force)
	if err != nil {
		return nil, err
	}
	defer st.Discard()
	m := &corpus.Manifest{SchemaVersion: corpus.SchemaVersion, Kind: corpus.KindAMI, CodeVersion: corpus.Writer("ami-ingest", IngestVersion), SampleRate: corpus.SampleRate}
	report := &Report{}
	var sources []string
	for _, e := range list {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		conv, r, src, err := ingestMeeting(o, rules, e, st.Dir)
		if err != nil {
			return nil, err
		}
		m.Conversations = append(m.Conversations, conv)
		report.add(r)
		sources = append(sources, src...)
	}
	if m.Source, err = sourceFiles(o, sources); err != nil {
		return nil, err
	}
	return report, st.Commit(m)
}

// ingestMeeting reads one meeting, derives its events and writes its
// folder into dir. It returns the manifest entry, the counts and the
// input files (prefixed nxt/ or audio/).
func ingestMeeting(o Options, rules floor.AMIRules, e amiListEntry, dir string) (corpus.Conversation, MeetingReport, []string, error) {
	mt, err := readAMIMeeting(o.NXT, e.Meeting, o.Limits)
	if err != nil {
		return corpus.Conversation{}, MeetingReport{}, nil, err
	}
	headsets := findHeadsets(o.Audio, e.Meeting)
	r := MeetingReport{Meeting: e.Meeting, ID: strings.ToLower(e.Meeting), Split: e.Split}
	var speakers []amiSpeaker
	var paths []string // audio path per speaker; "" for a silent channel
	for i, sp := range mt.Speakers {
		if !sp.Annotated && headsets[i] == "" {
			continue
		}
		speakers = append(speakers, sp)
		paths = append(paths, headsets[i])
		r.Channels = append(r.Channels, sp.Letter)
	}
	if !slices.ContainsFunc(mt.Speakers, func(s amiSpeaker) bool { return s.Annotated }) {
		return corpus.Conversation{}, r, nil, fmt.Errorf("meeting %s: no words files (looked for %s)", e.Meeting, nxtPath(o.NXT, "words", e.Meeting, "[A-E]", "words"))
	}
	if !slices.ContainsFunc(paths, func(p string) bool { return p != "" }) {
		return corpus.Conversation{}, r, nil, fmt.Errorf("meeting %s: no headset audio (looked for %s and %s)", e.Meeting,
			filepath.Join(o.Audio, e.Meeting, "audio", e.Meeting+".Headset-[0-4].wav"), filepath.Join(o.Audio, e.Meeting+".Headset-[0-4].wav"))
	}
	events := deriveMeeting(rules, speakers, &r)
	events = excludeSilent(events, paths, &r)
	n, err := channelLength(paths, lastEnd(events), o.Limits)
	if err != nil {
		return corpus.Conversation{}, r, nil, fmt.Errorf("meeting %s: %w", e.Meeting, err)
	}
	r.Duration = float64(n) / corpus.SampleRate
	conv, err := writeAMIConversation(dir, r, paths, n, events, e.Meeting, o.Limits)
	if err != nil {
		return corpus.Conversation{}, r, nil, fmt.Errorf("meeting %s: %w", e.Meeting, err)
	}
	var src []string
	for _, s := range mt.Sources {
		src = append(src, "nxt/"+s)
	}
	for _, p := range paths {
		if p != "" {
			src = append(src, "audio/"+rel(o.Audio, p))
		}
	}
	return conv, r, src, nil
}

// deriveMeeting applies the floor rules to a meeting's speakers (speaker
// k+1 is speakers[k]) and counts what they derived.
func deriveMeeting(rules floor.AMIRules, speakers []amiSpeaker, r *MeetingReport) []floor.Event {
	vocal := make([][]floor.Vocalisation, len(speakers))
	for k, sp := range speakers {
		vocal[k] = sp.Vocal
		r.Words += sp.Words
		r.WordsDropped += sp.WordsDropped
		r.Segments += sp.Segments
		r.SegmentsOverlap += sp.Overlapping
		r.DABackchannels += sp.DABackchans
	}
	events, dropped := rules.Derive(vocal)
	r.WordsDropped += dropped
	return events
}

// excludeSilent drops the events of speakers whose headset file is
// missing: their channel is written silent, and a detector cannot be asked
// to find events in silence. Other speakers' events keep their floor
// fields, which may name the silent speaker.
func excludeSilent(events []floor.Event, paths []string, r *MeetingReport) []floor.Event {
	for k, p := range paths {
		if p == "" {
			r.SilentChannels = append(r.SilentChannels, r.Channels[k])
		}
	}
	kept := events[:0]
	for _, e := range events {
		if paths[e.Speaker-1] == "" {
			r.EventsExcluded++
			continue
		}
		kept = append(kept, e)
	}
	r.count(kept)
	return kept
}

func (r *MeetingReport) count(events []floor.Event) {
	for _, e := range events {
		switch e.Kind {
		case floor.Turn:
			r.Turns++
			r.Holds += len(e.Holds)
			if e.Ending == floor.Yielded {
				r.Yielded++
			} else {
				r.InterruptedEnds++
			}
		case floor.Backchannel:
			r.Backchannels++
		case floor.Interruption:
			r.Interruptions++
		case floor.InterruptionAttempt:
			r.Attempts++
		case floor.NonFloorTakingInterruption:
			r.NonFloorTaking++
		case floor.NonContent:
			r.NonContent++
		}
	}
}

func lastEnd(events []floor.Event) float64 {
	end := 0.0
	for _, e := range events {
		end = max(end, e.End)
	}
	return end
}

// findHeadsets returns the headset file of each letter A..E ("" where
// there is none): <audio>/<m>/audio/<m>.Headset-<n>.wav as the AMI release
// lays it out, else <audio>/<m>.Headset-<n>.wav.
func findHeadsets(dir, meeting string) []string {
	out := make([]string, len(amiLetters))
	for n := range amiLetters {
		name := fmt.Sprintf("%s.Headset-%d.wav", meeting, n)
		for _, p := range []string{filepath.Join(dir, meeting, "audio", name), filepath.Join(dir, name)} {
			if _, err := os.Stat(p); err == nil {
				out[n] = p
				break
			}
		}
	}
	return out
}

// channelLength is the length at 16 kHz that every channel of a meeting is
// padded to: it covers each headset file resampled and the last event. The
// headers give it, so nothing is decoded twice.
func channelLength(paths []string, eventsEnd float64, lim limits.Limits) (int, error) {
	n := int(math.Ceil(eventsEnd * corpus.SampleRate))
	for _, p := range paths {
		if p == "" {
			continue
		}
		in, err := audio.OpenWAVBlocks(p, lim)
		if err != nil {
			return 0, err
		}
		in.Close()
		n = max(n, audio.ResampledLength(in.Frames, in.Rate, corpus.SampleRate))
	}
	return n, nil
}

// writeChannel writes a headset file as a 16 kHz mono channel of n samples
// (path "" for a silent one). It streams: a meeting of any length and
// rate costs a few blocks of memory, not its channels at 16 kHz.
func writeChannel(dst, path string, n int, lim limits.Limits) error {
	if path != "" {
		return audio.ResampleWAVFile(dst, path, corpus.SampleRate, n, lim)
	}
	w, err := audio.CreateWAV(dst, corpus.SampleRate, n)
	if err != nil {
		return err
	}
	return w.Close()
}

// writeAMIConversation writes a meeting's folder into dir and returns its
// manifest entry.
func writeAMIConversation(dir string, r MeetingReport, paths []string, n int, events []floor.Event, meeting string, lim limits.Limits) (corpus.Conversation, error) {
	c := corpus.Conversation{ID: r.ID, Split: r.Split, InteractionType: InteractionType(meeting), Speakers: len(paths),
		Topic: meeting, Voices: []string{}, Samples: n, Duration: r.Duration,
		Channels: r.Channels, Files: map[string]string{}}
	folder := filepath.Join(dir, c.ID)
	if err := os.Mkdir(folder, 0o755); err != nil {
		return corpus.Conversation{}, err
	}
	for k, p := range paths {
		if err := writeChannel(filepath.Join(folder, corpus.ChannelName(k+1)), p, n, lim); err != nil {
			return corpus.Conversation{}, err
		}
	}
	if events == nil {
		events = []floor.Event{}
	}
	log := corpus.EventLog{SchemaVersion: corpus.SchemaVersion, ConversationID: c.ID, Duration: c.Duration, Speakers: c.Speakers, Events: events}
	if err := log.Validate(); err != nil {
		return corpus.Conversation{}, fmt.Errorf("derived event log: %w", err)
	}
	data, err := log.Encode()
	if err != nil {
		return corpus.Conversation{}, err
	}
	if err := os.WriteFile(filepath.Join(folder, corpus.EventsName), data, 0o644); err != nil {
		return corpus.Conversation{}, err
	}
	for _, name := range corpus.FilesOf(corpus.KindAMI, c) {
		if c.Files[name], err = digest.FileSHA256(filepath.Join(folder, name)); err != nil {
			return corpus.Conversation{}, err
		}
	}
	return c, nil
}

// sourceFiles hashes the input files, sorted by path.
func sourceFiles(o Options, paths []string) ([]corpus.SourceFile, error) {
	paths = append(paths, "meetings/"+filepath.Base(o.Meetings))
	slices.Sort(paths)
	paths = slices.Compact(paths)
	out := make([]corpus.SourceFile, 0, len(paths))
	for _, p := range paths {
		var local string
		switch root, name, _ := strings.Cut(p, "/"); root {
		case "nxt":
			local = filepath.Join(o.NXT, filepath.FromSlash(name))
		case "audio":
			local = filepath.Join(o.Audio, filepath.FromSlash(name))
		default:
			local = o.Meetings
		}
		sum, err := sourceSHA256(local, o.Limits)
		if err != nil {
			return nil, err
		}
		out = append(out, corpus.SourceFile{Path: p, SHA256: sum})
	}
	return out, nil
}

func (r *Report) add(m MeetingReport) {
	r.Meetings = append(r.Meetings, m)
	t, c := &r.Total, m.Counts
	t.Words += c.Words
	t.WordsDropped += c.WordsDropped
	t.Segments += c.Segments
	t.SegmentsOverlap += c.SegmentsOverlap
	t.DABackchannels += c.DABackchannels
	t.Turns += c.Turns
	t.Yielded += c.Yielded
	t.InterruptedEnds += c.InterruptedEnds
	t.Holds += c.Holds
	t.Backchannels += c.Backchannels
	t.Interruptions += c.Interruptions
	t.Attempts += c.Attempts
	t.NonFloorTaking += c.NonFloorTaking
	t.NonContent += c.NonContent
	t.EventsExcluded += c.EventsExcluded
}

// WriteText prints the counts as a table, one row per meeting and a total.
func (r *Report) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "meeting\tsplit\tchannels\tsilent\twords\tdropped\tturns\tyielded\tinterrupted\tholds\tBC\tINT\tattempts\tNFTI\tnon-content\texcluded\t")
	row := func(name, split, channels, silent string, c Counts) {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t\n", name, split, channels, silent,
			c.Words, c.WordsDropped, c.Turns, c.Yielded, c.InterruptedEnds, c.Holds, c.Backchannels, c.Interruptions,
			c.Attempts, c.NonFloorTaking, c.NonContent, c.EventsExcluded)
	}
	for _, m := range r.Meetings {
		silent := strings.Join(m.SilentChannels, "")
		if silent == "" {
			silent = "-"
		}
		row(m.Meeting, m.Split, strings.Join(m.Channels, ""), silent, m.Counts)
	}
	row("total", "", "", "", r.Total)
	return tw.Flush()
}

// sourceSHA256 hashes a file of the dataset, opened by limits.Open's rule
// (at most lim's source_bytes).
func sourceSHA256(path string, lim limits.Limits) (string, error) {
	f, err := lim.OpenSource(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	return digest.SHA256(f, path)
}
