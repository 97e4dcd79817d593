// bot.cpp: YOUR LOGIC goes here, and the command line.
//
//   ./bot [-h HOST] [-p PORT] [-n NAME]     (defaults: 127.0.0.1, 42485, "sample-cpp")
//
// The game loop (uecda.cpp) asks a uecda::Bot two things:
//
//   exchange  at the start of a game, if you are the daifugo (give 2 cards back) or the
//             fugo (give 1): return a table with `count` cards of your hand marked 1.
//   move      on your turn: return your play (1 per card, 2 for the joker in the cell of
//             the card it stands for); an all-zero table passes.
//
// `view` holds your hand, the cards on the field, the state flags (revolution, lock,
// 11-back, an empty field), everyone's cards left, classes and seats (uecda.hpp).
// plays.hpp has helpers: read_play() says what a table's cards are, and the weakest_*
// functions find legal plays.  A play the rules do not allow is answered 8 and counts as a
// pass.  Exit status: 0 when the server ends the match, 1 if the connection fails, 2 for a
// bad command line.
//
// This sample is a simple strategy: lead the weakest cards (a sequence if one starts at the
// weakest rank, else every card of that rank), follow with the weakest play that beats the
// field, pass when there is none, and give away the weakest cards.
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <stdexcept>

#include "plays.hpp"
#include "uecda.hpp"

class SampleBot : public uecda::Bot {
public:
    uecda::Table exchange(const uecda::GameView& view, int count) override {
        return uecda::weakest_cards(view, count);
    }

    uecda::Table move(const uecda::GameView& view) override {
        auto play = view.field_empty ? uecda::weakest_lead(view) : uecda::weakest_follow(view);
        return play.value_or(uecda::Table{});  // nothing found: an all-zero table, a pass
    }
};

int main(int argc, char** argv) {
    std::string host = "127.0.0.1", name = "sample-cpp";
    int port = uecda::kDefaultPort;
    for (int i = 1; i < argc; i++) {
        if (i + 1 < argc && std::strcmp(argv[i], "-h") == 0) host = argv[++i];
        else if (i + 1 < argc && std::strcmp(argv[i], "-p") == 0) port = std::atoi(argv[++i]);
        else if (i + 1 < argc && std::strcmp(argv[i], "-n") == 0) name = argv[++i];
        else {
            std::cerr << "usage: " << argv[0] << " [-h HOST] [-p PORT] [-n NAME]\n";
            return 2;
        }
    }
    try {
        uecda::Connection conn(host, port);
        SampleBot bot;
        uecda::play_match(conn, name, bot);
    } catch (const std::runtime_error& e) {
        std::cerr << argv[0] << ": " << e.what() << "\n";
        return 1;
    }
    return 0;
}
