/*
 * chain3d_pinocchio.cpp -- accelerations of the 3-D chain (chain3d_loop.h)
 * with Pinocchio's articulated-body algorithm (ABA, Featherstone).
 *
 * Built joint by joint: body k on a JointModelSphericalZYX (configuration =
 * the Z-Y-X Euler angles, velocity = their time derivatives, as symbody's
 * coordinates), placed at (l(k-1), 0, 0) of the previous body's frame (at the
 * origin for k = 0), with the inertia (mass, centre of mass, inertia tensor at
 * the centre of mass) of the parameters; gravity (0, 0, -g).
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

#include "chain3d_loop.h"

namespace {

struct Chain {
    pinocchio::Model model;
    pinocchio::Data data;
    Eigen::VectorXd tau;
    explicit Chain(const pinocchio::Model &m) : model(m), data(m), tau(Eigen::VectorXd::Zero(m.nv)) {}
};

std::unique_ptr<Chain> chain;

pinocchio::Model chain_3d(int n, const double *p)
{
    using namespace pinocchio;
    Model model;
    model.gravity.linear(Eigen::Vector3d(0.0, 0.0, -p[0]));
    JointIndex parent = 0;
    for (int k = 0; k < n; ++k) {
        const double *b = p + 1 + 11 * k; /* m, cx, cy, cz, Ixx, Iyy, Izz, Ixy, Iyz, Ixz, l */
        SE3 placement = SE3::Identity();
        if (k > 0) placement.translation() = Eigen::Vector3d(b[-1], 0.0, 0.0); /* l of body k-1 */
        parent = model.addJoint(parent, JointModelSphericalZYX(), placement, "joint" + std::to_string(k));
        Eigen::Matrix3d I;
        I << b[4], b[7], b[9], b[7], b[5], b[8], b[9], b[8], b[6];
        model.appendBodyToJoint(parent, Inertia(b[0], Eigen::Vector3d(b[1], b[2], b[3]), I));
    }
    return model;
}

}  // namespace

extern "C" int chain_init(int n, const double *p)
{
    try {
        chain = std::make_unique<Chain>(chain_3d(n, p));
        return 0;
    } catch (...) {
        chain.reset();
        return 2;
    }
}

extern "C" int chain_ddq(const double *x, double *ddq)
{
    if (!chain) return 1;
    const Eigen::Index nv = chain->model.nv;
    pinocchio::aba(chain->model, chain->data, Eigen::Map<const Eigen::VectorXd>(x, nv),
                   Eigen::Map<const Eigen::VectorXd>(x + nv, nv), chain->tau, pinocchio::Convention::LOCAL);
    Eigen::Map<Eigen::VectorXd>(ddq, nv) = chain->data.ddq;
    return 0;
}

extern "C" double chain_loop(int nstates, const double *X, long iterations, double *checksum)
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

extern "C" void chain_free(void) { chain.reset(); }
