// uecda.hpp: the UECda card-table protocol 20070 as a sample C++ client sees it.
//
// Every message is a table of 8 x 15 integers or one integer, each a 32-bit big-endian
// number.  Rows 0-3 of a table are the suits (spades, hearts, diamonds, clubs), columns 1-13
// the ranks 3 4 5 6 7 8 9 10 J Q K A 2; a 1 is a card.  The joker is a 2: at [4][1] in a
// hand, and in a play in the cell of the card it stands for.  Row 5 is the game state, row 6
// the cards left, classes and seats (docs/PROTOCOL.md in the daihinmin repository).
//
// The files of this client:
//   uecda.hpp / uecda.cpp  the wire and the game loop (you need not change them)
//   plays.hpp / plays.cpp  reading tables and finding legal plays (helpers for your logic)
//   bot.cpp                YOUR LOGIC (a class derived from uecda::Bot) and main()
#pragma once

#include <array>
#include <string>

namespace uecda {

constexpr int kRows = 8;
constexpr int kCols = 15;
constexpr int kProtocol = 20070;
constexpr int kDefaultPort = 42485;
constexpr int kPlayers = 5;

using Table = std::array<std::array<int, kCols>, kRows>;

// What the bot knows when it is asked; filled in by the game loop.
struct GameView {
    int me = -1;                  // my player number (0-4)
    Table hand{};                 // my cards: 1s in rows 0-3, the joker as 2 at [4][1]
    Table field{};                // the cards on the field (all 0 when field_empty)
    bool field_empty = true;      // nobody has played in this trick yet: I may play anything
    bool revolution = false;      // weaker ranks beat stronger ones
    bool eleven_back = false;     // a jack reversed the order until the trick clears
    bool lock = false;            // a follow must have the same suits as the field
    std::array<int, kPlayers> cards_left{};
    std::array<int, kPlayers> classes{};  // 0 daifugo .. 4 daihinmin
    std::array<int, kPlayers> seats{};    // the player in each seat; play goes in seat order
    int game = 0;                         // 1 for the first game of the match
};

// YOUR LOGIC derives from this.
class Bot {
public:
    virtual ~Bot() = default;
    // The daifugo gives 2 cards back, the fugo 1: a table with `count` of your cards marked 1.
    virtual Table exchange(const GameView& view, int count) = 0;
    // Your play (1 per card, 2 for the joker in the cell of the card it stands for);
    // an all-zero table passes.
    virtual Table move(const GameView& view) = 0;
};

// A TCP connection to the server, closed when it goes out of scope.
class Connection {
public:
    Connection(const std::string& host, int port);  // throws std::runtime_error
    ~Connection();
    Connection(const Connection&) = delete;
    Connection& operator=(const Connection&) = delete;

    int read_int();                  // each throws std::runtime_error if the connection fails
    Table read_table();
    void write_table(const Table& t);

private:
    void read_all(void* buf, std::size_t size);
    int fd_ = -1;
};

// Plays a whole match: the profile, then every game, asking `bot`.  Returns when the server
// ends the match; throws std::runtime_error if the connection fails.
void play_match(Connection& conn, const std::string& name, Bot& bot);

}  // namespace uecda
