package synth

import "github.com/floorbench/floorbench/internal/dialogue"

// The text banks the script writer draws from (docs/architecture.md#generator, stage 1). They
// are written for this project. Slots in braces are filled from the
// conversation's topic ({thing}, {other}), persona names ({name}) and the
// small lists below.

// topicBank is what one interaction type talks about: each topic has a
// title and the things a conversation about it mentions.
type topic struct {
	Title  string
	Things []string
}

var topicBanks = map[dialogue.InteractionType][]topic{
	dialogue.Casual: {
		{"weekend plans", []string{"the hiking trip", "the new cafe", "the farmers market", "the concert", "the beach", "the barbecue"}},
		{"films", []string{"the new thriller", "that old western", "the documentary", "the animated film", "the sequel", "the ending"}},
		{"cooking", []string{"the curry", "the sourdough", "the pasta sauce", "the spice rack", "the new oven", "the recipe"}},
		{"holidays", []string{"the ferry", "the old town", "the hotel", "the mountain hut", "the flight", "the museum"}},
		{"neighbours", []string{"the garden", "the new dog", "the street party", "the noise", "the fence", "the parking"}},
	},
	dialogue.TaskOriented: {
		{"booking a venue", []string{"the main hall", "the deposit", "the catering", "the seating plan", "the contract", "the sound system"}},
		{"moving house", []string{"the van", "the boxes", "the keys", "the meter readings", "the new address", "the piano"}},
		{"fixing the website", []string{"the login page", "the database", "the search box", "the checkout", "the error log", "the backup"}},
		{"ordering supplies", []string{"the invoice", "the printer paper", "the delivery", "the supplier", "the budget code", "the stock list"}},
		{"planning the launch", []string{"the press release", "the demo", "the schedule", "the slides", "the guest list", "the venue"}},
	},
	dialogue.Instructional: {
		{"assembling a bookshelf", []string{"the side panel", "the long screws", "the shelf pins", "the back board", "the hex key", "the top rail"}},
		{"baking bread", []string{"the dough", "the starter", "the flour", "the proofing basket", "the oven", "the crust"}},
		{"setting up a router", []string{"the cable", "the admin page", "the password", "the firmware", "the reset button", "the network name"}},
		{"repotting plants", []string{"the roots", "the compost", "the new pot", "the drainage layer", "the trowel", "the watering can"}},
		{"changing a tyre", []string{"the jack", "the wheel nuts", "the spare", "the wrench", "the hub cap", "the handbrake"}},
	},
	dialogue.Collaborative: {
		{"designing a poster", []string{"the headline", "the colours", "the photo", "the logo", "the font", "the layout"}},
		{"writing a report", []string{"the summary", "the figures", "the second chapter", "the references", "the conclusion", "the appendix"}},
		{"planning a garden", []string{"the vegetable bed", "the path", "the shed", "the herbs", "the pond", "the fruit trees"}},
		{"organising a trip", []string{"the route", "the train times", "the hostel", "the packing list", "the map", "the tickets"}},
		{"building a game", []string{"the first level", "the main character", "the sound effects", "the scoring", "the menu", "the boss fight"}},
	},
	dialogue.Argumentative: {
		{"city transport", []string{"the bike lanes", "the bus fares", "the congestion charge", "the parking fees", "the tram line", "the ring road"}},
		{"remote work", []string{"the office", "the commute", "the meetings", "the productivity numbers", "the team spirit", "the rent"}},
		{"school uniforms", []string{"the cost", "the dress code", "the blazers", "the fairness argument", "the survey", "the rules"}},
		{"the football match", []string{"the referee", "the penalty", "the new striker", "the tactics", "the second half", "the transfer"}},
		{"the housing plan", []string{"the tower blocks", "the green belt", "the rents", "the council vote", "the developers", "the car park"}},
	},
	dialogue.Narrative: {
		{"a lost passport", []string{"the airport", "the border guard", "the embassy", "the taxi driver", "the hotel desk", "the photocopy"}},
		{"a storm at sea", []string{"the sail", "the harbour", "the radio", "the lifejackets", "the captain", "the lighthouse"}},
		{"the first job", []string{"the manager", "the interview", "the uniform", "the night shift", "the big mistake", "the pay cheque"}},
		{"a wedding disaster", []string{"the cake", "the best man", "the rings", "the band", "the photographer", "the rain"}},
		{"a night in the mountains", []string{"the tent", "the torch", "the path", "the strange noise", "the stream", "the sunrise"}},
	},
}

// statements per type: the body of most turns.
var statements = map[dialogue.InteractionType][]string{
	dialogue.Casual: {
		"I went past {thing} on {day} and it was absolutely packed",
		"honestly I think {thing} was better than {other}",
		"my sister keeps telling me about {thing} every time we talk",
		"we should all go and see {thing} together some time",
		"I have heard mixed things about {thing} from a few friends",
		"the last time I tried {thing} it was a bit of a disaster",
		"{name} said {thing} is worth it if you go early",
		"I did not expect {thing} to be that much fun",
	},
	dialogue.TaskOriented: {
		"we need to sort out {thing} before {day}",
		"I can take care of {thing} if you handle {other}",
		"the problem is that {thing} depends on {other}",
		"let us put {thing} on the list for {day}",
		"{name} already called about {thing} this morning",
		"we have about {num} days left to finish {thing}",
		"I will send an email about {thing} after this call",
		"the cheapest option for {thing} is still too expensive",
	},
	dialogue.Instructional: {
		"first take {thing} and line it up with {other}",
		"make sure {thing} is facing the right way before you start",
		"now gently press {thing} down until it clicks",
		"you want to leave about {num} centimetres around {thing}",
		"the trick with {thing} is to go slowly at the beginning",
		"after that you can attach {thing} to {other}",
		"do not tighten {thing} all the way just yet",
		"check {thing} again once {other} is in place",
	},
	dialogue.Collaborative: {
		"what if we moved {thing} closer to {other}",
		"I like your idea about {thing}, let us build on it",
		"maybe {thing} could work better with a simpler design",
		"we could try {thing} first and see how it looks",
		"I sketched a version of {thing} last night",
		"if we combine {thing} with {other} we save a lot of time",
		"{name} had a good suggestion about {thing} yesterday",
		"let us keep {thing} but change {other}",
	},
	dialogue.Argumentative: {
		"I completely disagree, {thing} is the real problem here",
		"the numbers on {thing} simply do not support that",
		"you keep ignoring what {thing} costs ordinary people",
		"that is exactly why {thing} has failed every time",
		"nobody asked for {thing} in the first place",
		"if you look at {other} you will see I am right about {thing}",
		"I am sorry but {thing} is not the priority at all",
		"{name} made the same mistake about {thing} last year",
	},
	dialogue.Narrative: {
		"so there I was standing next to {thing} with no idea what to do",
		"and then out of nowhere {thing} just disappeared",
		"I remember the moment I saw {thing} for the first time",
		"we waited for {num} hours near {thing} and nothing happened",
		"after a while {name} came back with {other}",
		"that was when I realised {thing} had been there all along",
		"the worst part was {thing}, it still makes me laugh",
		"by the time we reached {other} it was completely dark",
	},
}

// questions end a turn or a clause before a hold.
var questions = map[dialogue.InteractionType][]string{
	dialogue.Casual:        {"have you been to {thing}", "what did you think of {thing}", "do you want to come along", "did you hear about {thing}"},
	dialogue.TaskOriented:  {"can you confirm {thing} by {day}", "who is handling {thing}", "do we have the numbers for {thing}", "is {other} sorted already"},
	dialogue.Instructional: {"can you see {thing} from where you are", "does that make sense so far", "is {thing} sitting flat now", "have you got {other} ready"},
	dialogue.Collaborative: {"what do you think about {thing}", "should we change {other} as well", "could you take a look at {thing}", "does that work for everyone"},
	dialogue.Argumentative: {"how can you possibly defend {thing}", "did you even read the report on {thing}", "what about {other} then", "so who pays for {thing}"},
	dialogue.Narrative:     {"can you imagine how that felt", "do you know what happened next", "have you ever seen {thing} like that", "guess who was waiting at {other}"},
}

// openers start a turn.
var openers = []string{"well", "so", "okay", "right", "yes", "actually", "you know", "I mean", "look", "alright"}

// backchannels are continuers: listener tokens that only say "go on".
var backchannels = []string{
	"mm hm", "yeah", "right", "uh huh", "okay", "sure", "yes", "mm", "I see", "exactly", "true",
	"yeah yeah", "mm right", "oh okay", "uh huh yeah", "right right", "yep", "totally", "I know", "oh yes",
}

// Listener speech that is not a continuer (successful claims, failed
// claims and non-floor-taking interjections alike) is written from the
// banks below by listenerText, from one shared vocabulary, so that
// neither its wording nor its length tells which of the three it is;
// only what the floor does next does.

// shortListener are listener phrases of one to three words.
var shortListener = []string{
	"wait", "sorry?", "hold on", "no no", "but", "hang on", "what?", "no way", "oh really",
	"fair enough", "same here", "oh wow", "good point", "ha, typical", "really?", "oh dear",
	"but why", "wait, what", "sorry, I", "no, but", "oh come on", "seriously?", "I mean",
	"hmm, maybe", "not quite", "oh right", "just one thing", "can I", "well, no", "exactly that",
	"that is true", "oh I remember", "hang on, the", "but what", "oh that", "never",
}

// listenerOpeners start longer listener speech.
var listenerOpeners = []string{
	"oh", "well", "wait", "sorry", "no", "but", "actually", "hang on", "yeah but", "I mean",
	"oh wow", "ha", "hmm", "right, but", "listen", "okay but", "no no", "oh yes", "hold on", "see",
}

// listenerClauses are the body of longer listener speech; slots as in the
// turn templates.
var listenerClauses = []string{
	"I remember {thing}", "that is just like {thing}", "we had the same problem with {thing}",
	"{thing} was freezing", "you should tell them about {other}", "that is not what {name} said",
	"what about {thing}", "we took the night train and it was freezing", "I never liked {thing} anyway",
	"{name} would love that", "that happened to me on {day}", "it was the same with {other}",
	"I think {thing} is the key", "you are forgetting {other}", "it cost about {num} pounds",
	"we waited {num} hours for {thing}", "that is exactly my point", "I did not know that",
	"let me just say one thing", "can I add something about {thing}", "that is the funny part",
	"my brother said the same", "{thing} is always like that", "not if you count {other}",
	"there was that thing with {thing}", "we tried that on {day}", "it never works the first time",
	"you cannot be serious", "I heard about {thing} too", "and {name} was there as well",
	"that is what I was going to say", "the same thing with {other}", "it was a total mess",
	"I would not do that", "we should ask {name}", "it depends on {thing}",
	"it reminds me of {other}", "I saw {thing} on {day}", "that makes no sense to me",
	"everyone says that about {thing}", "I was about to mention {thing}", "honestly it was brilliant",
}

// nonContent are vocalisations without words.
var nonContent = []string{"ha ha ha", "ha ha", "heh heh", "ahem", "hmm", "oh ho ho", "pff", "ha", "mmm hmm hmm", "ooh"}

// slot fillers.
var (
	days  = []string{"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "the weekend", "next week"}
	nums  = []string{"two", "three", "four", "five", "ten", "twenty"}
	names = []string{"Alex", "Sam", "Jordan", "Priya", "Chen", "Maria", "Tom", "Aisha", "Lukas", "Nora", "Omar", "Ruth"}
)
