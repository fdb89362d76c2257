from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.extender_args import ExtenderArgs
from ...models.host_priority import HostPriority
from ...models.problem import Problem
from ...types import Response


def _get_kwargs(
    api_key: str,
    cluster_id: str,
    *,
    body: ExtenderArgs,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/kubernetes/{api_key}/clusters/{cluster_id}/extender/prioritize".format(
            api_key=quote(str(api_key), safe=""),
            cluster_id=quote(str(cluster_id), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Problem | list[HostPriority] | None:
    if response.status_code == 200:
        response_200 = []
        _response_200 = response.json()
        for response_200_item_data in _response_200:
            response_200_item = HostPriority.from_dict(response_200_item_data)

            response_200.append(response_200_item)

        return response_200

    if response.status_code == 400:
        response_400 = Problem.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = Problem.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = Problem.from_dict(response.json())

        return response_404

    if response.status_code == 409:
        response_409 = Problem.from_dict(response.json())

        return response_409

    if response.status_code == 413:
        response_413 = Problem.from_dict(response.json())

        return response_413

    if response.status_code == 422:
        response_422 = Problem.from_dict(response.json())

        return response_422

    if response.status_code == 429:
        response_429 = Problem.from_dict(response.json())

        return response_429

    if response.status_code == 503:
        response_503 = Problem.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[Problem | list[HostPriority]]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    api_key: str,
    cluster_id: str,
    *,
    client: AuthenticatedClient | Client,
    body: ExtenderArgs,
) -> Response[Problem | list[HostPriority]]:
    """kube-scheduler extender prioritize: Headroom's choice scores 10

    Args:
        api_key (str): An API key, for clients that cannot send headers.
        cluster_id (str):
        body (ExtenderArgs): Sent to filter and prioritize: the pod and its candidate nodes (full
            ``Nodes``, or
            only ``NodeNames`` when the extender is ``nodeCacheCapable``); one of the two is
            required.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | list[HostPriority]]
    """

    kwargs = _get_kwargs(
        api_key=api_key,
        cluster_id=cluster_id,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    api_key: str,
    cluster_id: str,
    *,
    client: AuthenticatedClient | Client,
    body: ExtenderArgs,
) -> Problem | list[HostPriority] | None:
    """kube-scheduler extender prioritize: Headroom's choice scores 10

    Args:
        api_key (str): An API key, for clients that cannot send headers.
        cluster_id (str):
        body (ExtenderArgs): Sent to filter and prioritize: the pod and its candidate nodes (full
            ``Nodes``, or
            only ``NodeNames`` when the extender is ``nodeCacheCapable``); one of the two is
            required.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | list[HostPriority]
    """

    return sync_detailed(
        api_key=api_key,
        cluster_id=cluster_id,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    api_key: str,
    cluster_id: str,
    *,
    client: AuthenticatedClient | Client,
    body: ExtenderArgs,
) -> Response[Problem | list[HostPriority]]:
    """kube-scheduler extender prioritize: Headroom's choice scores 10

    Args:
        api_key (str): An API key, for clients that cannot send headers.
        cluster_id (str):
        body (ExtenderArgs): Sent to filter and prioritize: the pod and its candidate nodes (full
            ``Nodes``, or
            only ``NodeNames`` when the extender is ``nodeCacheCapable``); one of the two is
            required.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | list[HostPriority]]
    """

    kwargs = _get_kwargs(
        api_key=api_key,
        cluster_id=cluster_id,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    api_key: str,
    cluster_id: str,
    *,
    client: AuthenticatedClient | Client,
    body: ExtenderArgs,
) -> Problem | list[HostPriority] | None:
    """kube-scheduler extender prioritize: Headroom's choice scores 10

    Args:
        api_key (str): An API key, for clients that cannot send headers.
        cluster_id (str):
        body (ExtenderArgs): Sent to filter and prioritize: the pod and its candidate nodes (full
            ``Nodes``, or
            only ``NodeNames`` when the extender is ``nodeCacheCapable``); one of the two is
            required.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | list[HostPriority]
    """

    return (
        await asyncio_detailed(
            api_key=api_key,
            cluster_id=cluster_id,
            client=client,
            body=body,
        )
    ).parsed
