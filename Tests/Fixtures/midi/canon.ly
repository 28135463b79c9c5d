\version "2.24.0"
\header { title = "Canon for Tactus: tuplets, ties, chords, a tempo change" }
upper = \relative c'' {
  \clef treble \key g \major \time 3/4 \tempo 4 = 96
  g4 \tuplet 3/2 { a8 b c } d4 ~ | d8 c b4 <g b d>4 |
  \tempo 4 = 132
  \tuplet 5/4 { e16 d c b a } g2 | <d fis a>2. \bar "|."
}
lower = \relative c {
  \clef bass \key g \major \time 3/4
  g2 d'4 | g,2 r4 | c4 d d, | g2. \bar "|."
}
\score {
  \new PianoStaff << \new Staff \upper \new Staff \lower >>
  \layout { }
  \midi { }
}
