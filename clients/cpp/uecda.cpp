// uecda.cpp: the wire and the game loop of the sample C++ client (protocol 20070).
//
// Per match: send the profile table ([0][0] = 20070, the name in row 1), read my player
// number.  Per game: read the deal table; if [5][1] > 0, send that many cards back.  Per
// turn: read the turn table; if [5][2] = 1 it is my turn: send a play and read the answer
// (9 accepted, 8 rejected and counted as a pass); then read the field table and the end
// flag (0 the game goes on, 1 the game is over, 2 the match is over).
#include "uecda.hpp"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <stdexcept>

namespace uecda {

Connection::Connection(const std::string& host, int port) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* found = nullptr;
    if (getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found) != 0)
        throw std::runtime_error("cannot resolve " + host);
    for (addrinfo* a = found; a != nullptr && fd_ < 0; a = a->ai_next) {
        fd_ = socket(a->ai_family, a->ai_socktype, a->ai_protocol);
        if (fd_ >= 0 && connect(fd_, a->ai_addr, a->ai_addrlen) != 0) {
            close(fd_);
            fd_ = -1;
        }
    }
    freeaddrinfo(found);
    if (fd_ < 0) throw std::runtime_error("cannot connect to " + host + ":" + std::to_string(port));
    int one = 1;  // small messages, one per turn: send each at once
    setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

Connection::~Connection() {
    if (fd_ >= 0) close(fd_);
}

// TCP may deliver a message in pieces: read until all of it is there.
void Connection::read_all(void* buf, std::size_t size) {
    std::size_t got = 0;
    while (got < size) {
        ssize_t n = read(fd_, static_cast<char*>(buf) + got, size - got);
        if (n <= 0) throw std::runtime_error("the server closed the connection");
        got += static_cast<std::size_t>(n);
    }
}

int Connection::read_int() {
    std::uint32_t raw;
    read_all(&raw, sizeof raw);
    return static_cast<int>(ntohl(raw));
}

Table Connection::read_table() {
    std::uint32_t raw[kRows * kCols];
    read_all(raw, sizeof raw);
    Table t;
    for (int i = 0; i < kRows * kCols; i++) t[i / kCols][i % kCols] = static_cast<int>(ntohl(raw[i]));
    return t;
}

void Connection::write_table(const Table& t) {
    std::uint32_t raw[kRows * kCols];  // one write per table: the server reads it whole
    for (int i = 0; i < kRows * kCols; i++) raw[i] = htonl(static_cast<std::uint32_t>(t[i / kCols][i % kCols]));
    std::size_t sent = 0;
    while (sent < sizeof raw) {
        ssize_t n = write(fd_, reinterpret_cast<const char*>(raw) + sent, sizeof raw - sent);
        if (n <= 0) throw std::runtime_error("cannot write to the server");
        sent += static_cast<std::size_t>(n);
    }
}

namespace {

Table cards_of(const Table& t) {  // rows 0-4 only
    Table cards{};
    for (int r = 0; r < 5; r++) cards[r] = t[r];
    return cards;
}

void read_state(const Table& t, GameView& view) {
    view.field_empty = t[5][4] == 1;
    view.eleven_back = t[5][5] == 1;
    view.revolution = t[5][6] == 1;
    view.lock = t[5][7] == 1;
    for (int p = 0; p < kPlayers; p++) {
        view.cards_left[p] = t[6][p];
        view.seats[p] = t[6][10 + p];
    }
}

// One game: the deal, the exchange, every turn.  Returns the end flag (1 or 2).
int play_game(Connection& conn, GameView& view, Bot& bot) {
    Table t = conn.read_table();  // the deal table
    view.hand = cards_of(t);
    view.field = Table{};
    read_state(t, view);
    for (int p = 0; p < kPlayers; p++) view.classes[p] = t[6][5 + p];  // right in the deal
    if (t[5][1] > 0) conn.write_table(bot.exchange(view, t[5][1]));
    for (;;) {
        t = conn.read_table();  // the turn table: my hand and the state
        view.hand = cards_of(t);
        read_state(t, view);
        if (view.field_empty) view.field = Table{};
        if (t[5][2] == 1) {  // my turn
            conn.write_table(bot.move(view));
            conn.read_int();  // 9 accepted, 8 rejected (a pass)
        }
        view.field = cards_of(conn.read_table());  // the field table
        int flag = conn.read_int();
        if (flag != 0) return flag;
    }
}

}  // namespace

void play_match(Connection& conn, const std::string& name, Bot& bot) {
    Table profile{};
    profile[0][0] = kProtocol;
    for (std::size_t i = 0; i < name.size() && i < kCols - 1; i++)
        profile[1][i] = static_cast<unsigned char>(name[i]);
    conn.write_table(profile);
    GameView view;
    view.me = conn.read_int();
    for (view.game = 1;; view.game++)
        if (play_game(conn, view, bot) != 1) return;  // 2: the match is over
}

}  // namespace uecda
