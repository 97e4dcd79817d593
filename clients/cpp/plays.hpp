// plays.hpp: reading plays from tables and finding legal ones (helpers for bot.cpp).
//
// A play is a Table as the server wants it: a 1 in the cell of each card (row = suit,
// column = rank) and, for the joker, a 2 in the cell of the card it stands for; a lone
// joker may stand in any cell of rows 0-3.  An all-zero table is a pass.
#pragma once

#include <optional>

#include "uecda.hpp"

namespace uecda {

// The kinds of play, numbered as the reference server numbers them.
enum class Kind { Bad = -1, Pass = 0, Single = 1, Group = 2, Sequence = 3, Joker = 4 };

struct PlayInfo {
    Kind kind = Kind::Pass;
    int count = 0;            // cards, the joker included
    int low = kCols, high = -1;  // lowest and highest column (a single or group: its rank)
    int suits = 0;            // bit r set for each row r the play uses (the joker's row counts)
};

PlayInfo read_play(const Table& t);  // what the cards in rows 0-4 are
bool reversed(const GameView& view);  // revolution xor 11-back
bool stronger(const GameView& view, int col, int than);  // does rank col beat rank than?
bool has_card(const Table& hand, int suit, int col);
bool has_joker(const Table& hand);

std::optional<Table> weakest_lead(const GameView& view);    // the field is empty
std::optional<Table> weakest_follow(const GameView& view);  // the weakest play that beats it
Table weakest_cards(const GameView& view, int count);        // for the exchange

}  // namespace uecda
