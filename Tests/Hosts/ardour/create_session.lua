-- Host test, first process: a session on Ardour's dummy backend (no sound card),
-- at $TACTUS_RATE and $TACTUS_BLOCK, with 120 bpm and 133.7 bpm from bar 3, a
-- MIDI track holding Tactus (the "Tactus host test" preset) and the probe after
-- it. Saved; the loop range is added to the session file before the second
-- process loads it (Lua cannot create one).
local dir = os.getenv ("TACTUS_SESSION_DIR")
local rate = tonumber (os.getenv ("TACTUS_RATE"))
local block = tonumber (os.getenv ("TACTUS_BLOCK"))

local backend = AudioEngine:set_backend ("None (Dummy)", "", "")
backend:set_driver ("50x Speed")
AudioEngine:set_sample_rate (rate)
AudioEngine:set_buffer_size (block)
assert (AudioEngine:start (false) == 0, "the dummy backend did not start")

local s = create_session (dir, "hosttest", rate)
assert (s, "cannot create the session")

local tm = Temporal.TempoMap.write_copy ()
tm:set_tempo (Temporal.Tempo (120, 120, 4), Temporal.timepos_t (0))
tm:set_tempo (Temporal.Tempo (133.7, 133.7, 4), Temporal.timepos_t (4 * rate)) -- bar 3: 8 beats at 120 bpm = 4 s
Temporal.TempoMap.update (tm)

local tracks = s:new_midi_track (ARDOUR.ChanCount (ARDOUR.DataType ("midi"), 1), ARDOUR.ChanCount (ARDOUR.DataType ("midi"), 1),
	false, ARDOUR.PluginInfo (), nil, nil, 1, "Tactus", ARDOUR.PresentationInfo.max_order, ARDOUR.TrackMode.Normal, true)
local track = tracks:front ()
local tactus = ARDOUR.LuaAPI.new_plugin (s, "urn:tactus:sequencer", ARDOUR.PluginType.LV2, "Tactus host test")
assert (not tactus:isnil (), "Tactus not found: check LV2_PATH")
assert (track:add_processor_by_index (tactus, 0, nil, true) == 0, "cannot add Tactus")
local probe = ARDOUR.LuaAPI.new_plugin (s, "urn:tactus:hosttest:probe", ARDOUR.PluginType.LV2, "")
assert (not probe:isnil (), "the probe not found: check LV2_PATH")
assert (track:add_processor_by_index (probe, 1, nil, true) == 0, "cannot add the probe")

s:save_state ("", false, false, false, false, false)
print ("created", dir, rate, block)
close_session ()
quit ()
