/*
 * pinocchio_aba.cpp -- accelerations of the n-link pendulum on a cart with
 * Pinocchio's articulated-body algorithm (ABA, Featherstone).
 *
 * The same mechanism as examples/n_link_pendulum_on_cart.py, built joint by
 * joint: a prismatic joint along x carrying the cart (point mass m0), then n
 * revolute joints about z, joint i+1 placed at the end of link i, each link a
 * point mass m(i+1) at (l(i), 0, 0) of its joint frame; gravity (0, -g, 0).
 * Pinocchio's coordinates are relative joint angles theta: theta1 = q1 and
 * theta(i) = q(i) - q(i-1) for the absolute angles q of the symbody model;
 * the joint torques T(i) act on theta(i) directly (the torque on link i and
 * its reaction on link i-1).  Conversions are done by the caller, outside the
 * timed loop.
 */
#if __has_include(<pinocchio/multibody.hpp>)
#include <pinocchio/multibody.hpp> /* Pinocchio 4 */
#else
#include <pinocchio/multibody/data.hpp> /* Pinocchio 3 */
#include <pinocchio/multibody/model.hpp>
#endif
#include <pinocchio/algorithm/aba.hpp>

#include <chrono>
#include <memory>
#include <string>

#include "bench_loop.h"

namespace {

struct Chain {
    pinocchio::Model model;
    pinocchio::Data data;
    Eigen::VectorXd q, v, tau;
    explicit Chain(const pinocchio::Model &m) : model(m), data(m), q(m.nq), v(m.nv), tau(m.nv) {}
};

std::unique_ptr<Chain> chain;

pinocchio::Model pendulum_on_cart(int n, const double *p)
{
    using namespace pinocchio;
    const double g = p[0];
    const double *mass = p + 1;       /* m0 .. mn */
    const double *length = p + 2 + n; /* l0 .. l(n-1) */
    Model model;
    model.gravity.linear(Eigen::Vector3d(0.0, -g, 0.0));
    JointIndex parent = model.addJoint(0, JointModelPX(), SE3::Identity(), "cart");
    model.appendBodyToJoint(parent, Inertia(mass[0], Eigen::Vector3d::Zero(), Eigen::Matrix3d::Zero()));
    for (int i = 0; i < n; ++i) {
        SE3 placement = SE3::Identity();
        if (i > 0) placement.translation() = Eigen::Vector3d(length[i - 1], 0.0, 0.0);
        parent = model.addJoint(parent, JointModelRZ(), placement, "joint" + std::to_string(i + 1));
        model.appendBodyToJoint(parent,
                                Inertia(mass[i + 1], Eigen::Vector3d(length[i], 0.0, 0.0), Eigen::Matrix3d::Zero()));
    }
    return model;
}

}  // namespace

extern "C" int bench_init(int n, const double *p, const double *u)
{
    try {
        chain = std::make_unique<Chain>(pendulum_on_cart(n, p));
        for (int i = 0; i <= n; ++i) chain->tau[i] = u[i];
        return 0;
    } catch (...) {
        chain.reset();
        return 2;
    }
}

extern "C" int bench_ddq(const double *x, double *ddq)
{
    if (!chain) return 1;
    const Eigen::Index nv = chain->model.nv;
    chain->q = Eigen::Map<const Eigen::VectorXd>(x, nv);
    chain->v = Eigen::Map<const Eigen::VectorXd>(x + nv, nv);
    pinocchio::aba(chain->model, chain->data, chain->q, chain->v, chain->tau, pinocchio::Convention::LOCAL);
    Eigen::Map<Eigen::VectorXd>(ddq, nv) = chain->data.ddq;
    return 0;
}

extern "C" double bench_loop(int nstates, const double *X, long iterations, double *checksum)
{
    if (!chain || nstates < 1) return -1.0;
    const Eigen::Index nv = chain->model.nv;
    const pinocchio::Model &model = chain->model;
    pinocchio::Data &data = chain->data;
    double sum = 0.0;
    int k = 0;
    const auto t0 = std::chrono::steady_clock::now();
    for (long i = 0; i < iterations; ++i) {
        const double *x = X + static_cast<std::size_t>(k) * 2 * nv;
        pinocchio::aba(model, data, Eigen::Map<const Eigen::VectorXd>(x, nv),
                       Eigen::Map<const Eigen::VectorXd>(x + nv, nv), chain->tau, pinocchio::Convention::LOCAL);
        sum += data.ddq[nv - 1];
        if (++k == nstates) k = 0;
    }
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - t0;
    *checksum = sum;
    return elapsed.count() / static_cast<double>(iterations);
}

extern "C" void bench_free(void) { chain.reset(); }
