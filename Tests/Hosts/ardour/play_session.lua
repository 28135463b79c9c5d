-- Host test, second process: loads the session (now with a loop range from
-- bar 2 to bar 4, across the tempo change) and plays: from the start past the
-- tempo change; looping two and a half times; stopped; a locate to a sample
-- off the tick grid and play; stopped; play again from there; stopped.
-- The probe logs what Tactus received and played.
local dir = os.getenv ("TACTUS_SESSION_DIR")
local rate = tonumber (os.getenv ("TACTUS_RATE"))
local block = tonumber (os.getenv ("TACTUS_BLOCK"))
local offgrid = tonumber (os.getenv ("TACTUS_OFFGRID_SAMPLE"))
local UI = ARDOUR.TransportRequestSource.TRS_UI

local backend = AudioEngine:set_backend ("None (Dummy)", "", "")
backend:set_driver ("50x Speed")
AudioEngine:set_sample_rate (rate)
AudioEngine:set_buffer_size (block)
assert (AudioEngine:start (false) == 0, "the dummy backend did not start")
local s = load_session (dir, "hosttest")
assert (s, "cannot load the session")
local loop = s:locations ():auto_loop_location ()
assert (loop, "no loop range in the session")

local function wait_until (f, seconds)
	local limit = os.time () + (seconds or 60)
	while not f () do
		assert (os.time () < limit, "timed out")
		ARDOUR.LuaAPI.usleep (2000)
	end
end
local function settle () ARDOUR.LuaAPI.usleep (100000) end

-- 1. From the start, past the tempo change at bar 3 (beat 8) to beat 10.
s:request_locate (0, false, ARDOUR.LocateTransportDisposition.MustStop, UI)
wait_until (function () return s:transport_sample () == 0 end)
settle ()
s:request_roll (UI)
wait_until (function () return s:transport_sample () > 4 * rate + 2 * 60 * rate / 133.7 end)

-- 2. Loop the range beat 4 .. beat 10 (across the tempo change): the transport, past its end, first
-- jumps to its start (a locate); then it wraps at the loop end twice, and
-- plays half a second more.
s:request_play_loop (true, true)
local jumps, last = 0, s:transport_sample ()
wait_until (function ()
	local now = s:transport_sample ()
	if now < last then jumps = jumps + 1 end
	last = now
	return jumps >= 4 or (jumps == 3 and now > loop:start ():samples () + rate / 2)
end)
s:request_play_loop (false, false)
s:request_stop (false, false, UI)
wait_until (function () return s:transport_speed () == 0 end)
settle ()

-- 3. A locate to a sample off the tick grid, and play two beats.
s:request_locate (offgrid, false, ARDOUR.LocateTransportDisposition.MustStop, UI)
wait_until (function () return s:transport_sample () == offgrid end)
settle ()
s:request_roll (UI)
wait_until (function () return s:transport_sample () > offgrid + rate end)
s:request_stop (false, false, UI)
wait_until (function () return s:transport_speed () == 0 end)
settle ()

-- 4. Play again from where it stopped.
local restart = s:transport_sample ()
s:request_roll (UI)
wait_until (function () return s:transport_sample () > restart + rate end)
s:request_stop (false, false, UI)
wait_until (function () return s:transport_speed () == 0 end)
settle ()

print ("played", dir, rate, block)
close_session ()
quit ()
